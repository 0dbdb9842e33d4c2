package dev.lockstep.conformance;

import static dev.lockstep.conformance.StorageConformanceTest.bytes;
import static dev.lockstep.conformance.StorageConformanceTest.open;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.OpenedBlob;
import dev.lockstep.WriteOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code WriteOptions.SYNC} writes from many fibers on every worker at once, on every runtime: concurrent ones of
 * one open share flushes (group sync), and each is still durable when it completes. Every acknowledged write reads
 * back at once and after a restart — on the simulator a crash that loses everything unsynced, which the plain write
 * made after them shows.
 */
@Group(ReadmeGroup.SYNC_WRITES)
class SyncWriteConformanceTest {
    private static final int WRITERS = 16;
    private static final int ROUNDS = 8;
    private static final int RECORD = 64;
    private static final long TOTAL = (long) WRITERS * ROUNDS * RECORD;

    private static long offset(int writer, int round) {
        return ((long) round * WRITERS + writer) * RECORD;
    }

    private static byte[] record(int writer, int round) {
        byte[] bytes = new byte[RECORD];
        Arrays.fill(bytes, (byte) (1 + writer * ROUNDS + round));
        return bytes;
    }

    /**
     * 16 fibers spread over the workers each make 8 SYNC writes, awaiting each before the next, into one open blob:
     * each write reads back when it completes, and every one survives the restart; a plain write made after them
     * all is lost by the simulator's crash, so what survived there is what the SYNC writes made durable.
     */
    @Conformance
    void concurrentSyncWritesAreEachDurableWhenTheyComplete(Runtimes rt) {
        long length = rt.restartBetween(ctx -> {
            try (Blob blob = open(ctx, "partition", "records")) {
                List<Handle<Void>> writers = new ArrayList<>();
                for (int writer = 0; writer < WRITERS; writer++) {
                    int index = writer;
                    writers.add(ctx.child("writer" + writer).spawnOn(writer % ctx.workers(), child -> {
                        for (int round = 0; round < ROUNDS; round++) {
                            blob.writeAt(offset(index, round), new byte[][] {record(index, round)},
                                    WriteOptions.SYNC).await();
                            assertArrayEquals(record(index, round), blob.readAt(offset(index, round), RECORD).await());
                        }
                        return null;
                    }));
                }
                for (Handle<Void> writer : writers) {
                    writer.await();
                }
                blob.writeAt(TOTAL, bytes("unsynced")).await();
            }
            return null;
        }, ctx -> {
            OpenedBlob opened = ctx.open("partition", "records").await();
            try (Blob blob = opened.blob()) {
                for (int writer = 0; writer < WRITERS; writer++) {
                    for (int round = 0; round < ROUNDS; round++) {
                        assertArrayEquals(record(writer, round), blob.readAt(offset(writer, round), RECORD).await(),
                                "writer " + writer + ", round " + round);
                    }
                }
            }
            return opened.length();
        });
        if (rt.isSim()) {
            assertEquals(TOTAL, length, "the SYNC writes survived the crash, the plain write after them did not");
        } else {
            assertTrue(length >= TOTAL, "length " + length);
        }
    }

    /**
     * One SYNC write at a time, on each worker in turn, with nothing else to do: each completes — the worker that
     * reaped its write starts its flush, with no other wake-up coming — and survives the restart, where the
     * simulator's crash loses the plain write made after them.
     */
    @Conformance
    void aLoneSyncWriteOnAnIdleWorkerCompletesDurable(Runtimes rt) {
        int writes = 2 * rt.workers();
        long length = rt.restartBetween(ctx -> {
            try (Blob blob = open(ctx, "partition", "lone")) {
                for (int write = 0; write < writes; write++) {
                    int index = write;
                    ctx.child("lone" + write).spawnOn(write % ctx.workers(), child -> {
                        blob.writeAt((long) index * RECORD, new byte[][] {record(index, 0)}, WriteOptions.SYNC)
                                .await();
                        return null;
                    }).await();
                }
                blob.writeAt((long) writes * RECORD, bytes("unsynced")).await();
            }
            return null;
        }, ctx -> {
            OpenedBlob opened = ctx.open("partition", "lone").await();
            try (Blob blob = opened.blob()) {
                for (int write = 0; write < writes; write++) {
                    assertArrayEquals(record(write, 0), blob.readAt((long) write * RECORD, RECORD).await(),
                            "write " + write);
                }
            }
            return opened.length();
        });
        if (rt.isSim()) {
            assertEquals((long) writes * RECORD, length, "the SYNC writes survived the crash, the plain write did not");
        } else {
            assertTrue(length > (long) writes * RECORD, "length " + length);
        }
    }
}
