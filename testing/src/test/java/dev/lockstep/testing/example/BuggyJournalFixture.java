package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.testing.SimulationInfo;
import dev.lockstep.testing.SimulationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@link JournalTest} with the journal's sync forgotten: what the README's failing run shows. Not run by the build. */
class BuggyJournalFixture {
    private final List<String> acknowledged = new ArrayList<>();

    @SimulationTest(seeds = 50, faults = "torn-writes", crashes = 3, crashWithinMillis = 20)
    void acknowledgedEntriesSurviveCrashes(Context ctx, SimulationInfo run) {
        try (Journal journal = Journal.open(ctx, "log", false)) {
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
