package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lockstep.Blob;
import dev.lockstep.BufferPool;
import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Operation;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Buffer pools under real threads: three workers with small rings, four fibers on each writing from and
 * reading into buffers of their own worker's pool — closing some operations early and releasing buffers while
 * in flight — while two plain threads keep trying to allocate from, release and read the segments of those
 * buffers. What a user relies on: the pool has no lock because nothing but its worker ever changes it, so every
 * foreign call is refused ({@link IllegalStateException}, or {@link ClosedException} for a buffer already
 * released) and never corrupts a buffer or a count; every byte read back is the byte written; each worker's
 * {@link BufferPool#outstanding()} is back to zero once its fibers released their buffers, and every pool is at
 * zero after {@code start()} returns.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringBufferThreadsTest {
    private static final int WORKERS = 3;
    private static final int FIBERS = 4;
    private static final int ROUNDS = 150;
    private static final int RECORD = 8192;

    @TempDir
    Path directory;

    @Test
    void foreignThreadsAreRefusedAndPoolsDrain() throws Exception {
        ConcurrentLinkedQueue<IoBuffer> published = new ConcurrentLinkedQueue<>();
        AtomicReferenceArray<BufferPool> pools = new AtomicReferenceArray<>(WORKERS);
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger refused = new AtomicInteger();
        List<Throwable> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> intruders = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            intruders.add(Thread.ofPlatform().name("intruder-" + t).start(() -> {
                while (!done.get()) {
                    IoBuffer buffer = published.poll();
                    for (int w = 0; w < WORKERS; w++) {
                        BufferPool pool = pools.get(w);
                        if (pool != null) {
                            try {
                                pool.allocate(4096);
                                unexpected.add(new AssertionError("a plain thread allocated from " + pool));
                            } catch (IllegalStateException expected) {
                                refused.incrementAndGet();
                            }
                        }
                    }
                    if (buffer == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    try {
                        buffer.segment();
                        unexpected.add(new AssertionError("a plain thread took the segment of " + buffer));
                    } catch (IllegalStateException | ClosedException expected) {
                        refused.incrementAndGet();
                    }
                    try {
                        buffer.close();
                        // Allowed only as the no-op on a buffer its worker released already.
                    } catch (IllegalStateException expected) {
                        refused.incrementAndGet();
                    }
                }
            }));
        }
        try {
            UringRunner.builder().workers(WORKERS).ringEntries(8).storage(directory).build().start(ctx -> {
                List<Handle<Void>> workers = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    int worker = w;
                    workers.add(ctx.child("worker" + w).spawnOn(w, home -> {
                        BufferPool pool = home.buffers();
                        pools.set(worker, pool);
                        try (Blob blob = home.open("threads", "worker-" + worker).await().blob()) {
                            List<Handle<Void>> fibers = new ArrayList<>();
                            for (int f = 0; f < FIBERS; f++) {
                                int fiber = f;
                                fibers.add(home.child("fiber" + f).spawn(inner ->
                                        exercise(inner.buffers(), blob, worker, fiber, published)));
                            }
                            for (Handle<Void> fiber : fibers) {
                                fiber.await();
                            }
                            for (int turn = 0; turn < 10_000 && pool.outstanding() != 0; turn++) {
                                home.sleep(java.time.Duration.ofMillis(1));
                            }
                            assertEquals(0, pool.outstanding(), "outstanding buffers on worker " + worker);
                        }
                        return null;
                    }));
                }
                for (Handle<Void> handle : workers) {
                    handle.await();
                }
                return null;
            });
        } finally {
            done.set(true);
            for (Thread intruder : intruders) {
                intruder.join();
            }
        }
        if (!unexpected.isEmpty()) {
            throw new AssertionError(unexpected.size() + " foreign calls were not refused", unexpected.getFirst());
        }
        assertTrue(refused.get() > 0, "the intruders never met a pool");
        for (int w = 0; w < WORKERS; w++) {
            assertEquals(0, pools.get(w).outstanding());
        }
    }

    /** One fiber's rounds: write a record from a buffer, read it back into another, sometimes abandoning either. */
    private static Void exercise(BufferPool pool, Blob blob, int worker, int fiber, ConcurrentLinkedQueue<IoBuffer> out) {
        SplittableRandom random = new SplittableRandom(worker * 131L + fiber);
        long offset = (long) fiber * RECORD;
        byte[] last = null;
        for (int round = 0; round < ROUNDS; round++) {
            IoBuffer source = pool.allocate(RECORD);
            out.add(source);
            MemorySegment memory = source.segment();
            byte[] record = new byte[RECORD];
            random.nextBytes(record);
            MemorySegment.copy(record, 0, memory, ValueLayout.JAVA_BYTE, 0, RECORD);
            Operation<Void> write = blob.writeFrom(offset, source, 0, RECORD);
            if (random.nextInt(4) == 0) {
                write.close(); // retained: it still lands, and the buffer returns to the pool when it has
                source.close();
                last = null; // whether the next read sees it before it lands is not ordered
                continue;
            }
            write.await();
            source.close();
            last = record;
            IoBuffer target = pool.allocate(RECORD);
            out.add(target);
            Operation<Void> read = blob.readInto(offset, target, 0, RECORD);
            if (random.nextInt(4) == 0) {
                read.close();
                target.close();
                continue;
            }
            read.await();
            assertArrayEquals(last, target.segment().toArray(ValueLayout.JAVA_BYTE),
                    "worker " + worker + " fiber " + fiber + " round " + round);
            target.close();
        }
        if (pool.outstanding() < 0) {
            fail("negative outstanding count");
        }
        return null;
    }
}
