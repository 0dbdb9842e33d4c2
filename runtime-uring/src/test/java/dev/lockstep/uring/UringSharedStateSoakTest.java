package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Stream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The state a worker's service turn shares with fibers and plain threads, hammered from all three at once on
 * io_uring: a stream's buffered bytes (the worker's receive completions refill them while fibers of this and
 * other workers and a plain thread peek), and the channels that carry a receive's result to a party on another
 * thread (the worker sends into them while that party polls). A fiber that queued on a lock its own carrier
 * then waited for would wedge the worker, and the test would hang; every byte must arrive once, in order, and
 * every peek must see a consistent run of not-yet-received bytes.
 */
@Timeout(60)
class UringSharedStateSoakTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int WORKERS = 3;
    private static final int TOTAL = 3 << 20;
    private static final int MODULUS = 251;
    /** The worker the root task, and so the accepted connection's receives, runs on. */
    private static final int ROOT_WORKER = 0;

    private static byte patternAt(long offset) {
        return (byte) (offset % MODULUS);
    }

    /** A peek's bytes are consecutive bytes of the pattern (it may start anywhere: the receiver moves on). */
    private static void checkRun(byte[] peeked, AtomicReference<String> problem) {
        for (int i = 1; i < peeked.length; i++) {
            if (Math.floorMod(peeked[i] - peeked[i - 1], 256) != 1 && !(peeked[i - 1] == (byte) (MODULUS - 1)
                    && peeked[i] == 0)) {
                problem.compareAndSet(null, "peek returned a torn run at " + i + " of " + peeked.length);
                return;
            }
        }
    }

    @Test
    void receivesPeeksAndForwardedResultsFromWorkersFibersAndThreads() throws Exception {
        int fdsBefore = OpenDescriptors.fdCount();
        ExecutorService plain = Executors.newFixedThreadPool(2, Thread.ofPlatform().name("plain-", 0).factory());
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicLong peeks = new AtomicLong();
        AtomicLong forwarded = new AtomicLong();
        try {
            UringRunner.builder().workers(WORKERS).ringEntries(16).build().start(ctx -> {
                // However the root ends, the peekers and the sender stop: they only watch this flag.
                try (Listener listener = ctx.bind(LOOPBACK).await(); AutoCloseable stop = () -> done.set(true)) {
                    Handle<Void> sender = ctx.child("sender").spawnOn(2, c -> {
                        SplittableRandom random = new SplittableRandom(7);
                        try (Connection out = c.dial(listener.localAddress()).await()) {
                            long sent = 0;
                            while (sent < TOTAL) {
                                int size = (int) Math.min(TOTAL - sent, 1 + random.nextInt(20_000));
                                byte[] chunk = new byte[size];
                                for (int i = 0; i < size; i++) {
                                    chunk[i] = patternAt(sent + i);
                                }
                                out.sink().send(chunk).await();
                                sent += size;
                            }
                            // Keep the connection open until the receiver has everything.
                            while (!done.get()) {
                                c.sleep(java.time.Duration.ofMillis(1));
                            }
                        }
                        return null;
                    });
                    try (Connection in = listener.accept().await()) {
                        Stream stream = in.stream();
                        Runnable peeker = () -> {
                            while (!done.get()) {
                                checkRun(stream.peek(64 << 10), problem);
                                peeks.incrementAndGet();
                                Thread.yield();
                            }
                        };
                        Handle<Void> peekerElsewhere = ctx.child("peeker").spawnOn(1, c -> {
                            peeker.run();
                            return null;
                        });
                        Handle<Void> peekerHere = ctx.child("siblingPeeker").spawnOn(ROOT_WORKER, c -> {
                            peeker.run();
                            return null;
                        });
                        CompletableFuture<Void> peekerThread = CompletableFuture.runAsync(peeker, plain);
                        SplittableRandom random = new SplittableRandom(11);
                        long received = 0;
                        while (received < TOTAL) {
                            int length = (int) Math.min(TOTAL - received, 1 + random.nextInt(9_000));
                            Operation<byte[]> receive = stream.recv(length);
                            byte[] bytes;
                            switch (random.nextInt(3)) {
                                case 0 -> bytes = receive.await();
                                case 1 -> {
                                    // The result is forwarded to a plain thread: the worker sends it into a
                                    // channel the thread polls.
                                    CompletableFuture<byte[]> there = CompletableFuture.supplyAsync(receive::await,
                                            plain);
                                    while (!there.isDone()) {
                                        Thread.yield();
                                    }
                                    bytes = there.join();
                                    forwarded.incrementAndGet();
                                }
                                default -> {
                                    // ... or to a fiber of another worker.
                                    bytes = ctx.child("awaiter").spawnOn(1, c -> receive.await()).await();
                                    forwarded.incrementAndGet();
                                }
                            }
                            assertEquals(length, bytes.length);
                            for (int i = 0; i < length; i++) {
                                if (bytes[i] != patternAt(received + i)) {
                                    throw new AssertionError("byte " + (received + i) + " is " + bytes[i]
                                            + ", expected " + patternAt(received + i));
                                }
                            }
                            received += length;
                        }
                        done.set(true);
                        peekerElsewhere.await();
                        peekerHere.await();
                        while (!peekerThread.isDone()) {
                            Thread.yield();
                        }
                        peekerThread.join();
                    }
                    sender.await();
                }
                return null;
            });
        } finally {
            done.set(true);
            plain.shutdownNow();
        }
        assertEquals(null, problem.get());
        assertTrue(peeks.get() > 0 && forwarded.get() > 0, "every party took part: " + peeks + " peeks, "
                + forwarded + " forwarded results");
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "every socket was closed");
    }
}
