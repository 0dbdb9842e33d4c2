package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * {@link SegmentedLogTest} over the recovery that orders segments by name ({@code seg-10} before {@code seg-2}):
 * the README sweeps it from the command line, where its fault point takes the rollover that finds the bug. Not
 * run by the build (its name is no test's); {@code SegmentedLogSweepTest} runs it.
 */
public class MisorderedSegmentsFixture {
    private final List<Long> acknowledged = new ArrayList<>();

    @SimulationTest(seeds = 20, faults = "torn-writes", crashes = 3, crashWithinMillis = 200)
    void acknowledgedEntriesSurviveRollovers(Context ctx, RandomGenerator random) {
        try (SegmentedLog log = SegmentedLog.open(ctx, false)) {
            List<Long> recovered = log.entries();
            assertTrue(recovered.size() >= acknowledged.size(),
                    "lost entries: had " + acknowledged.size() + ", recovered " + recovered.size());
            for (int i = 0; i < acknowledged.size(); i++) {
                assertEquals(acknowledged.get(i), recovered.get(i), "entry " + i + " of " + acknowledged.size()
                        + " recovered out of order");
            }
            acknowledged.clear();
            acknowledged.addAll(recovered);
            for (int i = 0; i < 100; i++) {
                long value = random.nextLong();
                log.append(value);
                acknowledged.add(value);
                ctx.sleep(Duration.ofMillis(1));
            }
        }
    }
}
