package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Signal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulator as a user sees it: determinism, failures with their replay line, bad configuration. */
class SimRunnerTest {

    /** Several workers, spawns, timers and storage: the order of events is decided by the seed. */
    static String workload(Context ctx) throws Exception {
        StringBuilder trace = new StringBuilder();
        List<Handle<Integer>> handles = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int id = i;
            handles.add(ctx.child("w" + i).spawnOn(i % ctx.workers(), c -> {
                c.sleep(Duration.ofMillis(1 + id));
                Blob blob = c.open("data", "blob" + id).await().blob();
                try (blob) {
                    blob.writeAt(0, ("value-" + id).getBytes(StandardCharsets.UTF_8)).await();
                    blob.sync().await();
                    return blob.readAt(0, 7).await().length;
                }
            }));
        }
        for (Handle<Integer> handle : handles) {
            trace.append(handle.await()).append(',');
        }
        trace.append(ctx.now());
        return trace.toString();
    }

    private static String[] run(long seed) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(3).ringEntries(4).build());
        String result = runner.start(SimRunnerTest::workload);
        return new String[] {result, runner.digest()};
    }

    @Test
    void sameSeedGivesTheSameDigestAndDifferentSeedsDiffer() {
        Set<String> digests = new HashSet<>();
        for (long seed = 1; seed <= 40; seed++) {
            String[] first = run(seed);
            String[] second = run(seed);
            assertArrayEquals(first, second, "seed " + seed + " is not deterministic");
            digests.add(first[1]);
        }
        assertEquals(40, digests.size(), "different seeds should give different digests");
    }

    @Test
    void simulatedTimeJumpsInsteadOfWaiting() {
        Instant[] seen = new Instant[2];
        SimRunner.seeded(7).start(ctx -> {
            seen[0] = ctx.now();
            ctx.sleep(Duration.ofMinutes(30));
            seen[1] = ctx.now();
            return null;
        });
        assertTrue(Duration.between(seen[0], seen[1]).compareTo(Duration.ofMinutes(30)) >= 0);
    }

    @Test
    void stalledRunFailsWithItsReplayLine() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.seeded(3).start(ctx -> {
            try (Signal signal = ctx.stopped()) {
                return signal.await();
            }
        }));
        assertTrue(failure.getMessage().contains("stalled"), failure.getMessage());
        assertTrue(failure.getMessage().contains("replay: SimRunner.of(SimConfig.builder().seed(3L)"),
                failure.getMessage());
        assertEquals(3, failure.config().seed());
    }

    @Test
    void runPastItsTimeLimitFailsAsTimedOut() {
        SimConfig config = SimConfig.builder().seed(5).timeLimit(Duration.ofMinutes(1)).build();
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.of(config).start(ctx -> {
            ctx.sleep(Duration.ofHours(2));
            return null;
        }));
        assertTrue(failure.getMessage().contains("timed out"), failure.getMessage());
        // The replay line reproduces the failure.
        SimulationFailure again = assertThrows(SimulationFailure.class,
                () -> SimRunner.of(failure.config()).start(ctx -> {
                    ctx.sleep(Duration.ofHours(2));
                    return null;
                }));
        assertEquals(failure.getMessage(), again.getMessage());
    }

    @Test
    void threadSleepInAFiberIsADeterminismLeak() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.seeded(9).start(ctx -> {
            Thread.sleep(5);
            return null;
        }));
        assertTrue(failure.getMessage().contains("determinism leak"), failure.getMessage());
        assertTrue(failure.getMessage().contains("Thread.sleep"), failure.getMessage());
    }

    @Test
    void invalidConfigurationNamesTheField() {
        IllegalArgumentException workers = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().workers(0).build());
        assertTrue(workers.getMessage().contains("workers") && workers.getMessage().contains("was 0"));
        IllegalArgumentException ring = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().ringEntries(0).build());
        assertTrue(ring.getMessage().contains("ringEntries") && ring.getMessage().contains("was 0"));
        IllegalArgumentException start = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().start(Instant.parse("1969-12-31T23:59:59Z")));
        assertTrue(start.getMessage().contains("start") && start.getMessage().contains("1969"));
        assertNotEquals(SimConfig.builder().seed(1).build(), SimConfig.builder().seed(2).build());
    }
}
