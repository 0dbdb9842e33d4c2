package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.StorageIoException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * Many writers append to one log and sync it, each acknowledging a record only if its own sync succeeded and
 * never retrying: once one of its syncs fails a writer stops. No writer does what Blob's class doc warns against,
 * yet a sync that waited behind a failed flush (the flush that dropped its pages under Linux's model) must not
 * then succeed: its record is lost at the next crash.
 */
class GroupSyncAfterFailedFlushTest {
    private static final int WRITERS = 8;
    private static final int RECORDS = 6;
    private static final int SEEDS = 40;

    @Test
    void noWriterIsAcknowledgedForARecordAFailedFlushDropped() {
        List<String> lost = new ArrayList<>();
        for (long seed = 0; seed < SEEDS; seed++) {
            List<Integer> missing = lostAcknowledged(seed);
            if (!missing.isEmpty()) {
                lost.add("seed " + seed + ": " + missing);
            }
        }
        assertEquals(List.of(), lost, "acknowledged records lost after a crash");
    }

    private static List<Integer> lostAcknowledged(long seed) {
        StorageFaults faults = StorageFaults.builder().syncRate(0.2).build();
        ConcurrentLinkedQueue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
        Recovered<Void> crashed = SimRunner.of(SimConfig.builder().seed(seed).workers(2).build())
                .startAndRecover(ctx -> {
                    try (Blob log = ctx.open("wal", "log").await().blob()) {
                        SimRunner.control(ctx).storageFaults(faults);
                        List<Handle<Void>> writers = new ArrayList<>();
                        for (int w = 0; w < WRITERS; w++) {
                            int writer = w;
                            writers.add(ctx.child("writer" + w).spawnOn(w % 2, c -> {
                                for (int r = 0; r < RECORDS; r++) {
                                    int at = r * WRITERS + writer;
                                    log.writeAt(at, new byte[] {(byte) (at + 1)}).await();
                                    try {
                                        log.sync().await();
                                    } catch (StorageIoException failed) {
                                        return null; // poisoned for this writer: acknowledge nothing more
                                    }
                                    acknowledged.add(at);
                                }
                                return null;
                            }));
                        }
                        for (Handle<Void> writer : writers) {
                            writer.await();
                        }
                    }
                    return null;
                });
        return SyncFailureModelTest.lostAfterTheCrash(crashed, acknowledged);
    }
}
