package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

class SegmentedLogTest {
    private final List<Long> acknowledged = new ArrayList<>();

    @SimulationTest(seeds = 50, faults = "torn-writes", crashes = 3, crashWithinMillis = 200)
    void acknowledgedEntriesSurviveRollovers(Context ctx, RandomGenerator random) {
        try (SegmentedLog log = SegmentedLog.open(ctx)) {
            List<Long> recovered = log.entries();
            assertTrue(recovered.size() >= acknowledged.size(),
                    "lost entries: had " + acknowledged.size() + ", recovered " + recovered.size());
            assertEquals(acknowledged, recovered.subList(0, acknowledged.size()));
            acknowledged.clear();
            acknowledged.addAll(recovered);
            for (int i = 0; i < 100; i++) {
                long value = random.nextLong();
                log.append(value);            // may roll over to a new segment at its fault point
                acknowledged.add(value);
                ctx.sleep(Duration.ofMillis(1));
            }
        }
    }
}
