package dev.lockstep.demo.usertest;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import dev.lockstep.testing.SimulationInfo;
import dev.lockstep.testing.SimulationTest;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A user's own test with a planted bug, swept by {@code explore --test} in {@code TestSweepTest} (not run by the
 * build itself: its name is no test's). A counter acknowledges each value once written, but never syncs it, so a
 * crash may take back a value it acknowledged.
 */
public class UnsyncedCounterFixture {
    /** The last value acknowledged, kept across the seed's crash: one instance per seed. */
    private long acknowledged = -1;

    @SimulationTest(seeds = 20, faults = "torn-writes", crashes = 1, crashWithinMillis = 30)
    void acknowledgedValuesSurviveACrash(Context ctx, SimulationInfo run) {
        OpenedBlob opened = ctx.open("counter", "value").await();
        try (Blob blob = opened.blob()) {
            if (run.lifetime() > 0) {
                long recovered = opened.length() < Long.BYTES ? -1
                        : ByteBuffer.wrap(blob.readAt(0, Long.BYTES).await()).getLong();
                assertTrue(recovered >= acknowledged, "acknowledged " + acknowledged + ", recovered " + recovered);
                return;
            }
            for (long value = 0; value < 40; value++) {
                blob.writeAt(0, ByteBuffer.allocate(Long.BYTES).putLong(value).array()).await();
                if (value % 8 == 7) {
                    blob.sync().await(); // the bug: only every eighth value is synced before it is acknowledged
                }
                acknowledged = value;
                ctx.sleep(Duration.ofMillis(1));
            }
        }
    }
}
