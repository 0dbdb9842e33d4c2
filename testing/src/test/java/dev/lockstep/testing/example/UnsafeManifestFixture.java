package dev.lockstep.testing.example;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationTest;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ManifestTest} with each {@link Manifest.Bug}: what {@code ManifestPatternTest} runs and expects to fail. Not run
 * by the build on its own. The assertions are {@link ManifestTest#publishAndCheck}'s: no acknowledged manifest lost.
 */
class UnsafeManifestFixture {
    private final AtomicLong acknowledged = new AtomicLong();

    @SimulationTest(seeds = 100, faults = "torn-writes", crashes = 3, crashWithinMillis = 30)
    void withoutAPartitionSync(Context ctx) {
        ManifestTest.publishAndCheck(ctx, Manifest.Bug.NO_PARTITION_SYNC, acknowledged);
    }

    @SimulationTest(seeds = 100, faults = "torn-writes", crashes = 3, crashWithinMillis = 30)
    void withoutABlobSync(Context ctx) {
        ManifestTest.publishAndCheck(ctx, Manifest.Bug.NO_BLOB_SYNC, acknowledged);
    }
}
