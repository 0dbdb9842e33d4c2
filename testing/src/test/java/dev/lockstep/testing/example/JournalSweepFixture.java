package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationInfo;
import dev.lockstep.testing.SimulationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link JournalTest}'s simulated sweep over 100 seeds, without the runtime-uring run: what {@code SweepTiming}
 * times. Not run by the build.
 */
class JournalSweepFixture {
    private final List<String> acknowledged = new ArrayList<>();

    @SimulationTest(seeds = 100, faults = "torn-writes", crashes = 3, crashWithinMillis = 20)
    void acknowledgedEntriesSurviveCrashes(Context ctx, SimulationInfo run) {
        try (Journal journal = Journal.open(ctx, "log")) {
            List<String> recovered = journal.entries();
            assertTrue(recovered.size() >= acknowledged.size(),
                    "lost entries: had " + acknowledged.size() + ", recovered " + recovered.size());
            assertEquals(acknowledged, recovered.subList(0, acknowledged.size()));
            acknowledged.clear();
            acknowledged.addAll(recovered);
            for (int i = 0; i < 100; i++) {
                String entry = "entry " + run.lifetime() + "." + i;
                journal.append(entry);
                acknowledged.add(entry);
                ctx.sleep(Duration.ofMillis(1));
            }
        }
    }
}
