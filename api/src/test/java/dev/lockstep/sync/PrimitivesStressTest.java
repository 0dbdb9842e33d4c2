package dev.lockstep.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The primitives between real threads (the fallback awaiter parks them): every value sent is received exactly
 * once, no wake-up is lost (a lost one would hang a thread and fail the test at its timeout), a mutex excludes,
 * closes racing sends and receives lose nothing that was accepted. Runs a few hundred thousand hand-overs.
 */
class PrimitivesStressTest {
    private static final int PRODUCERS = 4;
    private static final int CONSUMERS = 4;
    private static final int PER_PRODUCER = 20_000;

    @Test
    void everyValueSentIsReceivedExactlyOnceWithReceivesClosedAtRandom() throws Exception {
        Channel<Integer> channel = Channel.bounded(3);
        BitSet seen = new BitSet();
        AtomicInteger duplicates = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int base = p * PER_PRODUCER;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < PER_PRODUCER; i++) {
                    channel.send(base + i).await();
                }
            }));
        }
        AtomicInteger received = new AtomicInteger();
        CountDownLatch consumersDone = new CountDownLatch(CONSUMERS);
        for (int c = 0; c < CONSUMERS; c++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        Operation<Integer> receive = channel.receive();
                        if (ThreadLocalRandom.current().nextInt(8) == 0) {
                            receive.close(); // pending or already handed a value: either way nothing is lost
                            continue;
                        }
                        int value;
                        try {
                            value = receive.await();
                        } catch (ClosedException drained) {
                            return;
                        }
                        synchronized (seen) {
                            if (seen.get(value)) {
                                duplicates.incrementAndGet();
                            }
                            seen.set(value);
                        }
                        received.incrementAndGet();
                    }
                } finally {
                    consumersDone.countDown();
                }
            }));
        }
        for (Thread producer : threads.subList(0, PRODUCERS)) {
            producer.join();
        }
        channel.close();
        consumersDone.await();
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(0, duplicates.get());
        assertEquals(PRODUCERS * PER_PRODUCER, received.get());
        assertEquals(PRODUCERS * PER_PRODUCER, seen.cardinality());
    }

    @Test
    void aMutexExcludesAndAnAbandonedGrantPassesOn() throws Exception {
        Mutex mutex = new Mutex();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong entries = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 10_000; i++) {
                    Operation<Lease> lock = mutex.lock();
                    if (i % 7 == 0) {
                        lock.close(); // pending or granted-unobserved: the mutex must pass on either way
                        continue;
                    }
                    try (Lease held = lock.await()) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        entries.incrementAndGet();
                        inside.decrementAndGet();
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(0, overlaps.get());
        assertEquals(6L * (10_000 - 1_429), entries.get()); // every lock not closed on purpose was entered
        assertTrue(!mutex.isLocked(), "the mutex is free at the end");
    }
}
