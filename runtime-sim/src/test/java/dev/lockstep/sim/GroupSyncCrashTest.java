package dev.lockstep.sim;

import org.junit.jupiter.api.Test;

/**
 * Group sync in the simulator: the engine's syncs coalesce (one flush completes every sync waiting when it was
 * issued, see {@code DurabilityPermit}), and the simulator's crash model keeps exactly what the flushes it saw
 * made durable. So whatever a crash cuts, every sync that returned covered its fiber's write: each fiber's
 * last acknowledged round is on disk after the crash (a later round may be too, made durable by another
 * fiber's flush before its own sync returned).
 */
class GroupSyncCrashTest {
    private static final int FIBERS = 6;

    @Test
    void everyAcknowledgedSyncSurvivesTheCrashWhenSyncsCoalesce() {
        AcknowledgedRounds.assertAcknowledgedRoundsSurviveTheCrash(FIBERS, 12, (blob, offset, bytes) -> {
            blob.writeAt(offset, bytes).await();
            blob.sync().await();
        });
    }
}
