package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A blob closed by a plain thread while a fiber reads into or writes from an {@link IoBuffer}: the call may
 * throw {@link ClosedException}, and then the buffer must be the caller's again (usable, closable, returned to
 * the pool) — not left marked as if the kernel had it. Two workers; each round opens the blob, a fiber loops
 * {@code readFully} or {@code writeFully} with its own buffer, and a plain thread closes the blob after a random
 * short spin, so the close lands at every point of the calls.
 */
class UringBlobCloseRaceStressTest {
    private static final int WORKERS = 2;
    private static final int MAX_ROUNDS = 40_000;
    private static final int LENGTH = 512;

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aBufferIsTheCallersAgainAfterAClosedBlobRefusedTheCall() {
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicInteger rounds = new AtomicInteger();
        AtomicInteger closedCalls = new AtomicInteger();
        int[] outstanding = new int[WORKERS];
        UringRunner.builder().workers(WORKERS).ringEntries(32).storage(directory).build().start(ctx -> {
            try (Blob setup = ctx.open("race", "blob").await().blob()) {
                setup.writeAt(0, new byte[LENGTH]).await();
            }
            SplittableRandom random = new SplittableRandom(7);
            long start = System.nanoTime();
            for (int round = 0; round < MAX_ROUNDS && problem.get() == null
                    && System.nanoTime() - start < StressBudget.nanos(); round++) {
                Blob blob = ctx.open("race", "blob").await().blob();
                boolean write = (round & 1) == 0;
                int spin = random.nextInt(40_000);
                AtomicLong calls = new AtomicLong();
                RacingCloser closer = RacingCloser.start(() -> calls.get() > 0, spin, blob::close);
                String how = ctx.child("user").spawnOn(round % WORKERS, c -> {
                    IoBuffer buffer = c.buffers().allocate(LENGTH);
                    try {
                        while (true) {
                            calls.incrementAndGet();
                            if (write) {
                                blob.writeFully(0, buffer, 0, LENGTH);
                            } else {
                                blob.readFully(0, buffer, 0, LENGTH);
                            }
                        }
                    } catch (ClosedException refused) {
                        closedCalls.incrementAndGet();
                    }
                    try {
                        buffer.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 1);
                    } catch (RuntimeException stuck) {
                        return "after " + calls.get() + " " + (write ? "writes" : "reads")
                                + " the blob's close left the buffer unusable: " + stuck;
                    } finally {
                        buffer.close();
                    }
                    return null;
                }).await();
                String gaveUp = closer.join();
                if (gaveUp != null) {
                    problem.compareAndSet(null, "round " + round + ": " + gaveUp);
                }
                if (how != null) {
                    problem.compareAndSet(null, "round " + round + ": " + how);
                }
                rounds.incrementAndGet();
            }
            for (int w = 0; w < WORKERS; w++) {
                outstanding[w] = ctx.child("count").spawnOn(w, b -> b.buffers().outstanding()).await();
            }
            return null;
        });
        System.out.println("rounds " + rounds.get() + ", calls refused by the close " + closedCalls.get());
        assertNull(problem.get());
        for (int w = 0; w < WORKERS; w++) {
            assertEquals(0, outstanding[w], "buffers of worker " + w + " not returned");
        }
    }

    /**
     * The same for a connection a plain thread closes while a fiber sends from a buffer with {@code sendFully}: a
     * send the close refused must leave the buffer the caller's, so that closing it returns it to the pool (a send
     * the close caught in flight lands when the kernel lets go, before the rounds end).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aBufferReturnsToThePoolAfterAClosedConnectionRefusedTheSend() {
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicInteger rounds = new AtomicInteger();
        int[] outstanding = new int[WORKERS];
        UringRunner.builder().workers(WORKERS).ringEntries(32).build().start(ctx -> {
            SplittableRandom random = new SplittableRandom(11);
            long start = System.nanoTime();
            try (Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await()) {
                for (int round = 0; round < MAX_ROUNDS && problem.get() == null
                        && System.nanoTime() - start < StressBudget.nanos(); round++) {
                    var accepted = listener.accept();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    Connection server = accepted.await();
                    int spin = random.nextInt(40_000);
                    AtomicLong calls = new AtomicLong();
                    RacingCloser closer = RacingCloser.start(() -> calls.get() > 0, spin, server::close);
                    int home = round % WORKERS;
                    var drain = ctx.child("drain").spawnOn((home + 1) % WORKERS, d -> {
                        try (client) {
                            while (true) {
                                client.stream().recv(LENGTH).await();
                            }
                        } catch (RuntimeException ended) {
                            return null;
                        }
                    });
                    String how = ctx.child("sender").spawnOn(home, c -> {
                        IoBuffer buffer = c.buffers().allocate(LENGTH);
                        try {
                            while (true) {
                                calls.incrementAndGet();
                                server.sink().sendFully(buffer, 0, LENGTH);
                            }
                        } catch (ClosedException | dev.lockstep.SendFailedException refused) {
                            return null; // the close refused the next send, or failed the one in flight (EPIPE)
                        } catch (RuntimeException other) {
                            return "the send loop ended with " + other;
                        } finally {
                            buffer.close();
                        }
                    }).await();
                    String gaveUp = closer.join();
                    if (gaveUp != null) {
                        problem.compareAndSet(null, "round " + round + ": " + gaveUp);
                    }
                    drain.await();
                    if (how != null) {
                        problem.compareAndSet(null, "round " + round + ": " + how);
                    }
                    rounds.incrementAndGet();
                }
            }
            for (int w = 0; w < WORKERS; w++) {
                outstanding[w] = ctx.child("count").spawnOn(w, b -> b.buffers().outstanding()).await();
            }
            return null;
        });
        System.out.println("send rounds " + rounds.get());
        assertNull(problem.get());
        for (int w = 0; w < WORKERS; w++) {
            assertEquals(0, outstanding[w], "buffers of worker " + w + " not returned after " + rounds.get()
                    + " rounds");
        }
    }
}
