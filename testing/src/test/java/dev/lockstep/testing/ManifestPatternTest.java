package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * The simulator finds the two classic bugs of replacing a manifest by rename (example/Manifest.java) within a
 * hundred seeds of crashes (each fails more than half of them): a rename whose partition is never synced (a crash
 * brings the old manifest back, as ext4 may) and a new manifest that is never synced before its rename (a crash
 * leaves the name on an empty or torn blob). The README's pattern, which does both, passes every seed of
 * {@code ManifestTest}.
 */
class ManifestPatternTest {

    private static List<Launch.Finished> failedSeeds(String method) {
        Launch launch = Launch.run(java.util.Map.of(), DiscoverySelectors.selectMethod(
                "dev.lockstep.testing.example.UnsafeManifestFixture#" + method + "(dev.lockstep.Context)"));
        assertEquals(100, launch.finished.size(), "every seed ran: " + launch.failedContainers);
        return launch.failed();
    }

    @Test
    @Timeout(120)
    void aRenameWithoutAPartitionSyncLosesAPublishedManifest() {
        List<Launch.Finished> failed = failedSeeds("withoutAPartitionSync");
        assertFalse(failed.isEmpty(), "no seed of 100 lost a rename that was never synced");
        String failure = failed.getFirst().failure().getMessage();
        assertTrue(failure.contains("lost a published manifest"), failure);
    }

    @Test
    @Timeout(120)
    void aRenameOfAnUnsyncedBlobLeavesATornOrEmptyManifest() {
        List<Launch.Finished> failed = failedSeeds("withoutABlobSync");
        assertFalse(failed.isEmpty(), "no seed of 100 lost the contents of a blob renamed without a sync");
        String failure = failed.getFirst().failure().getMessage();
        assertTrue(failure.contains("manifest of 0 bytes") || failure.contains("fails its CRC")
                || failure.contains("lost a published manifest"), failure);
    }
}
