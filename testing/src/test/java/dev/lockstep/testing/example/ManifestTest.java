package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationTest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The README's manifest: a published version survives every crash. Each lifetime reads what the crash before it
 * left, then publishes versions one after the other.
 */
class ManifestTest {
    /** The last version {@link Manifest#publish} returned for. A field: one test instance per seed. */
    private final AtomicLong acknowledged = new AtomicLong();

    @SimulationTest(seeds = 100, faults = "torn-writes", crashes = 3, crashWithinMillis = 30, uring = true)
    void aPublishedManifestSurvivesCrashes(Context ctx) {
        publishAndCheck(ctx, null, acknowledged);
    }

    /** One lifetime; {@code bug} null for the README's pattern. */
    static void publishAndCheck(Context ctx, Manifest.Bug bug, AtomicLong acknowledged) {
        long recovered = Manifest.read(ctx);
        assertTrue(recovered >= acknowledged.get(), "lost a published manifest: had version " + acknowledged.get()
                + ", recovered " + recovered);
        for (long version = recovered + 1; version <= recovered + 20; version++) {
            Manifest.publish(ctx, version, bug);
            acknowledged.set(version);
            ctx.sleep(Duration.ofMillis(1));
        }
    }
}
