package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationInfo;
import dev.lockstep.testing.SimulationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

class JournalTest {
    // What was acknowledged. A field: one test instance per seed, kept across that seed's crashes.
    private final List<String> acknowledged = new ArrayList<>();

    @SimulationTest(seeds = 50, faults = "torn-writes", crashes = 3, crashWithinMillis = 20, uring = true)
    void acknowledgedEntriesSurviveCrashes(Context ctx, SimulationInfo run) {
        try (Journal journal = Journal.open(ctx, "log")) {
            List<String> recovered = journal.entries();
            assertTrue(recovered.size() >= acknowledged.size(),
                    "lost entries: had " + acknowledged.size() + ", recovered " + recovered.size());
            assertEquals(acknowledged, recovered.subList(0, acknowledged.size()));
            acknowledged.clear();
            acknowledged.addAll(recovered);   // entries in flight at the crash may or may not be there
            for (int i = 0; i < 100; i++) {
                String entry = "entry " + run.lifetime() + "." + i;
                journal.append(entry);        // durable once it returns
                acknowledged.add(entry);
                ctx.sleep(Duration.ofMillis(1));
            }
        }
    }
}
