package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.StorageIoException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A write-ahead log that retries a failed sync until one succeeds and then acknowledges: the pattern that
 * passes a kind simulator and loses acknowledged records on Linux, where a failed writeback marks the pages
 * clean and the retry has nothing left to write.
 */
class SyncFailureModelTest {

    private static final int RECORDS = 8;
    private static final int SEEDS = 30;

    @Test
    void retryThenAcknowledgeLosesNothingUnderTheDefaultModelSinceAFailedSyncPoisonsTheOpen() {
        for (long seed = 0; seed < SEEDS; seed++) {
            assertEquals(List.of(), lostAcknowledged(seed, SyncFailureModel.LINUX), "seed " + seed);
        }
    }

    @Test
    void theOptimisticModelKeepsEveryAcknowledgedRecord() {
        for (long seed = 0; seed < SEEDS; seed++) {
            assertEquals(List.of(), lostAcknowledged(seed, SyncFailureModel.OPTIMISTIC), "seed " + seed);
        }
    }

    @Test
    void theDefaultModelIsLinux() {
        assertEquals(SyncFailureModel.LINUX, StorageFaults.NONE.syncFailure());
        assertEquals(SyncFailureModel.LINUX, SimConfig.builder().build().storageFaults().syncFailure());
    }

    /**
     * Runs the log with sync faults, crashes as soon as it finishes (everything unsynced lost), and returns the
     * acknowledged records the disk no longer holds.
     */
    private static List<Integer> lostAcknowledged(long seed, SyncFailureModel model) {
        StorageFaults faults = StorageFaults.builder().syncRate(0.3).syncFailure(model).build();
        List<Integer> acknowledged = new ArrayList<>();
        Recovered<Void> crashed = SimRunner.of(SimConfig.builder().seed(seed).build()).startAndRecover(ctx -> {
            try (Blob log = ctx.open("wal", "log").await().blob()) {
                SimRunner.control(ctx).storageFaults(faults);
                for (int record = 0; record < RECORDS; record++) {
                    log.writeAt(record, new byte[] {(byte) (record + 1)}).await();
                    boolean synced = false;
                    for (int attempt = 0; attempt < 5 && !synced; attempt++) {
                        try {
                            log.sync().await();
                            synced = true;
                        } catch (StorageIoException failedSync) {
                            // The mistake under test: retry, then acknowledge as if the first sync never failed.
                        }
                    }
                    if (!synced) {
                        break; // the open refuses every sync after a failed one
                    }
                    acknowledged.add(record);
                }
            }
            return null;
        });
        return lostAfterTheCrash(crashed, acknowledged);
    }

    /**
     * The acknowledged records (record {@code i} is byte {@code i + 1} at offset {@code i} of {@code wal/log}) that
     * the disk the crash left does not hold.
     */
    static List<Integer> lostAfterTheCrash(Recovered<Void> crashed, java.util.Collection<Integer> acknowledged) {
        assertTrue(crashed.outcome() instanceof Outcome.Completed<Void>, String.valueOf(crashed.outcome()));
        byte[] disk = SimRunner.from(crashed.checkpoint()).start(ctx -> {
            SimRunner.control(ctx).storageFaults(StorageFaults.NONE);
            try (Blob log = ctx.open("wal", "log").await().blob()) {
                return log.readAt(0, (int) log.length()).await();
            }
        });
        List<Integer> lost = new ArrayList<>();
        for (int record : acknowledged) {
            if (record >= disk.length || disk[record] != record + 1) {
                lost.add(record);
            }
        }
        return lost;
    }
}
