package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.io.DurabilityPermit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code WriteOptions.SYNC} writes where threads meet: fibers on four io_uring workers write two files through two
 * opens each, so the writes completing in one worker's batch join their open's group sync together and the opens'
 * permits pass between workers. Every write is acknowledged (a SYNC write left waiting for a flush nobody starts
 * would hang the test to its timeout), every acknowledged record is in the file afterwards, and each open flushed
 * at least once and at most once per write. Then a lone SYNC write on each idle worker: it must start its own flush
 * with nothing else to wake the worker.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringSyncWriteGroupStressTest {
    private static final int WORKERS = 4;
    private static final int FILES = 2;
    private static final int OPENS = FILES * 2;
    private static final int FIBERS = 32;
    private static final int ROUNDS = 16;
    private static final int RECORD = 128;

    @TempDir
    Path directory;

    private static byte[] record(int fiber, int round) {
        byte[] bytes = new byte[RECORD];
        Arrays.fill(bytes, (byte) (1 + fiber * 7 + round));
        bytes[0] = (byte) fiber;
        bytes[1] = (byte) round;
        return bytes;
    }

    /** Fiber {@code fiber}'s records go to file {@code fiber % FILES}, through open {@code fiber % OPENS}. */
    private static long offset(int fiber, int round) {
        return ((long) round * FIBERS + fiber) * RECORD;
    }

    /** Worker {@code worker}'s lone record, after every writer's, in file {@code worker % FILES}. */
    private static long loneOffset(int worker) {
        return ((long) ROUNDS * FIBERS + worker) * RECORD;
    }

    @Test
    void syncWritesOfManyWorkersAndOpensAreEachAcknowledgedAndKept() throws Exception {
        AtomicReference<String> problem = new AtomicReference<>();
        long[] flushes = new long[OPENS];
        UringRunner.builder().workers(WORKERS).storage(directory).build().start(ctx -> {
            Blob[] opens = new Blob[OPENS];
            for (int open = 0; open < OPENS; open++) {
                opens[open] = ctx.open("p", "file" + (open % FILES)).await().blob();
            }
            try {
                List<Handle<Void>> writers = new ArrayList<>();
                for (int fiber = 0; fiber < FIBERS; fiber++) {
                    int index = fiber;
                    Blob blob = opens[fiber % OPENS];
                    writers.add(ctx.child("writer" + fiber).spawnOn(fiber % WORKERS, child -> {
                        try {
                            for (int round = 0; round < ROUNDS; round++) {
                                blob.writeAt(offset(index, round), new byte[][] {record(index, round)},
                                        WriteOptions.SYNC).await();
                            }
                        } catch (Throwable failure) {
                            problem.compareAndSet(null, "writer " + index + ": " + failure);
                        }
                        return null;
                    }));
                }
                for (Handle<Void> writer : writers) {
                    writer.await();
                }
                // One at a time, so each worker has nothing but this write: its flush is started by the turn that
                // reaped the write, not by some later wake-up.
                for (int worker = 0; worker < WORKERS; worker++) {
                    int lone = worker;
                    Blob blob = opens[worker % OPENS];
                    ctx.child("lone" + worker).spawnOn(worker, child -> {
                        long before = DurabilityPermit.of(blob).flushes();
                        blob.writeAt(loneOffset(lone), new byte[][] {record(FIBERS + lone, 0)}, WriteOptions.SYNC)
                                .await();
                        long made = DurabilityPermit.of(blob).flushes() - before;
                        if (made != 1) {
                            problem.compareAndSet(null, "a lone SYNC write on worker " + lone + " made " + made
                                    + " flushes, not 1");
                        }
                        return null;
                    }).await();
                }
                for (int open = 0; open < OPENS; open++) {
                    flushes[open] = DurabilityPermit.of(opens[open]).flushes();
                }
            } finally {
                for (Blob blob : opens) {
                    blob.close();
                }
            }
            return null;
        });
        assertNull(problem.get());
        for (int open = 0; open < OPENS; open++) {
            long writes = (long) FIBERS / OPENS * ROUNDS + 1;
            int checked = open;
            assertTrue(flushes[open] >= 1 && flushes[open] <= writes,
                    () -> "open " + checked + " made " + flushes[checked] + " flushes for " + writes + " writes");
        }
        UringRunner.builder().workers(1).storage(directory).build().start(ctx -> {
            for (int file = 0; file < FILES; file++) {
                try (Blob blob = ctx.open("p", "file" + file).await().blob()) {
                    for (int fiber = file; fiber < FIBERS; fiber += FILES) {
                        for (int round = 0; round < ROUNDS; round++) {
                            assertArrayEquals(record(fiber, round), blob.readAt(offset(fiber, round), RECORD).await(),
                                    "fiber " + fiber + ", round " + round);
                        }
                    }
                    for (int worker = file; worker < WORKERS; worker += FILES) {
                        assertArrayEquals(record(FIBERS + worker, 0), blob.readAt(loneOffset(worker), RECORD).await(),
                                "lone write of worker " + worker);
                    }
                }
            }
            return null;
        });
    }
}
