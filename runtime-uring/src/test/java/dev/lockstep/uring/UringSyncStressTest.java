package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.Operation;
import dev.lockstep.sync.Channel;
import dev.lockstep.sync.Join;
import dev.lockstep.sync.Lease;
import dev.lockstep.sync.Mutex;
import dev.lockstep.sync.OneShot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The task primitives where threads really meet: fibers on two io_uring workers and plain threads send, receive,
 * lock and close at once. Every value is received exactly once (none lost when a receive closed from another
 * thread had already been handed one), the mutex never admits two, and nothing hangs: a lost wake-up would park a
 * fiber or thread forever and fail the test at its timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringSyncStressTest {
    private static final int FIBER_PRODUCERS = 4;
    private static final int THREAD_PRODUCERS = 2;
    private static final int EACH = 10_000;

    @Test
    void fibersOnTwoWorkersAndPlainThreadsShareAChannelAndAMutex() throws Exception {
        Channel<Integer> channel = Channel.bounded(8);
        Mutex mutex = new Mutex();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        BitSet seen = new BitSet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger received = new AtomicInteger();

        // Plain threads: two producers and one consumer that closes some of its receives from another thread.
        // Each producer says it is done through a one-shot that the root task (a fiber) awaits.
        List<OneShot<Boolean>> producersDone = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREAD_PRODUCERS; t++) {
            int base = (FIBER_PRODUCERS + t) * EACH;
            OneShot<Boolean> done = new OneShot<>();
            producersDone.add(done);
            threads.add(Thread.ofPlatform().name("plain-producer-" + t).start(() -> {
                for (int i = 0; i < EACH; i++) {
                    channel.send(base + i).await();
                }
                done.complete(true);
            }));
        }
        Thread threadConsumer = Thread.ofPlatform().name("plain-consumer").start(() -> {
            for (int attempt = 0; ; attempt++) {
                Operation<Integer> receive = channel.receive();
                if (attempt % 5 == 0) {
                    Thread closer = Thread.ofPlatform().start(receive::close);
                    try {
                        closer.join();
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                    continue;
                }
                try {
                    record(receive.await(), seen, duplicates, received);
                } catch (ClosedException drained) {
                    return;
                }
            }
        });

        UringRunner.builder().workers(2).ringEntries(16).build().start(ctx -> {
            List<Handle<Void>> producers = new ArrayList<>();
            for (int p = 0; p < FIBER_PRODUCERS; p++) {
                int base = p * EACH;
                producers.add(ctx.child("producer" + p).spawnOn(p % 2, c -> {
                    for (int i = 0; i < EACH; i++) {
                        channel.send(base + i).await();
                        if (i % 500 == 0) {
                            try (Lease held = mutex.lock().await()) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                c.sleep(Duration.ofMillis(1)); // held across an await on an io_uring timer
                                inside.decrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            List<Handle<Void>> consumers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                consumers.add(ctx.child("consumer" + r).spawnOn(r, c -> {
                    while (true) {
                        try {
                            record(channel.receive().await(), seen, duplicates, received);
                        } catch (ClosedException drained) {
                            return null;
                        }
                    }
                }));
            }
            Join.all(producers).await();
            for (OneShot<Boolean> done : producersDone) {
                done.get().await(); // a fiber woken by a plain thread
            }
            channel.close();
            Join.all(consumers).await();
            return null;
        });
        threadConsumer.join();
        for (Thread thread : threads) {
            thread.join();
        }
        int total = (FIBER_PRODUCERS + THREAD_PRODUCERS) * EACH;
        assertEquals(0, duplicates.get());
        assertEquals(total, received.get());
        assertEquals(total, seen.cardinality());
        assertEquals(0, overlaps.get());
    }

    private static void record(int value, BitSet seen, AtomicInteger duplicates, AtomicInteger received) {
        synchronized (seen) {
            if (seen.get(value)) {
                duplicates.incrementAndGet();
            }
            seen.set(value);
        }
        received.incrementAndGet();
    }
}
