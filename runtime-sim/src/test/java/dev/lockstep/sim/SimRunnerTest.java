package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Signal;
import dev.lockstep.Task;
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

    /**
     * A sleep holds nothing to release: once its fiber has taken the result, its worker has no callback queued for
     * it, so fibers that only sleep make no service turn due between their steps (one turn per timer that fires,
     * none per step).
     */
    @Test
    void fibersThatOnlySleepMakeNoServiceTurnPerStep() {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(5).build()).traced();
        runner.start(ctx -> {
            for (int i = 0; i < 3; i++) {
                ctx.sleep(Duration.ofNanos(1_000));
                assertFalse(dev.lockstep.engine.worker.Worker.current().hasReadyWork(),
                        "a retired sleep left its worker work to do, after sleep " + i);
            }
            List<Handle<Void>> sleepers = new ArrayList<>();
            for (int f = 0; f < 8; f++) {
                sleepers.add(ctx.child("f" + f).spawn(c -> {
                    for (int i = 0; i < 20; i++) {
                        c.sleep(Duration.ofNanos(1_000));
                    }
                    return null;
                }));
            }
            for (Handle<Void> sleeper : sleepers) {
                sleeper.await();
            }
            return null;
        });
        long steps = runner.stats().fiberSteps();
        long turns = runner.trace().stream().filter(event -> event.kind().equals("ring.enter")).count();
        assertTrue(steps > 160, "every sleep is a step: " + steps);
        assertTrue(turns < steps / 4, "service turns (ring.enter events) " + turns + " for " + steps + " steps");
        // One worker (service-first in either mode): each service step is one turn, one enter (sleeping fibers never
        // turn the ring themselves), and the clock only moves when nothing can run.
        SimStats stats = runner.stats();
        assertEquals(turns, stats.serviceSteps(), "service steps against ring.enter events");
        assertEquals(0, stats.clockSlips(), "clock slips in service-first mode");
        assertEquals(steps + turns, stats.schedulerSteps());
        assertTrue(stats.draws() >= stats.fiberSteps() / 2, "draws " + stats.draws() + " for " + steps
                + " steps, most of which choose among several runnable fibers");
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
    void stalledRunFailsWithItsReplayLineAndTheReplayReproducesIt() {
        SimConfig config = SimConfig.builder().seed(3).workers(2).build();
        Task<Integer> waitsForever = ctx -> {
            try (Signal signal = ctx.stopped()) {
                return signal.await();
            }
        };
        SimulationFailure failure = assertThrows(SimulationFailure.class,
                () -> SimRunner.of(config).start(waitsForever));
        assertTrue(failure.getMessage().contains("stalled"), failure.getMessage());
        assertTrue(failure.getMessage().contains("worker 0 'root' at dev.lockstep.sim.SimRunnerTest"),
                "names the waiting fiber and its line: " + failure.getMessage());
        assertTrue(failure.getMessage().contains("replay: SimRunner.of(SimConfig.builder().seed(3L).workers(2)"),
                failure.getMessage());
        assertTrue(failure.getMessage().contains("  [run from dev.lockstep.sim.SimRunnerTest."),
                "names the user's call of the runner, not the simulator's frames: " + failure.getMessage());
        assertEquals(config, failure.config());
        SimulationFailure again = assertThrows(SimulationFailure.class,
                () -> SimRunner.of(failure.config()).start(waitsForever));
        assertEquals(firstLine(failure), firstLine(again));
    }

    private static String firstLine(Throwable failure) {
        return failure.getMessage().lines().findFirst().orElseThrow();
    }

    @Test
    void runPastItsTimeLimitFailsAsTimedOutAndTheReplayReproducesIt() {
        SimConfig config = SimConfig.builder().seed(5).timeLimit(Duration.ofMinutes(1))
                .storageFaults(StorageFaults.builder().writeRate(0.25).build())
                .network(NetworkConfig.DEFAULT.withBreakRate(0.1)).crashPolicy(CrashPolicy.PREFIX).build();
        Task<Object> sleepsTooLong = ctx -> {
            ctx.sleep(Duration.ofHours(2));
            return null;
        };
        SimulationFailure failure = assertThrows(SimulationFailure.class,
                () -> SimRunner.of(config).start(sleepsTooLong));
        assertTrue(failure.getMessage().contains("timed out"), failure.getMessage());
        // The replay line carries the whole configuration, and its config reproduces the failure.
        String replay = failure.replayLine();
        assertTrue(replay.contains(".storageFaults(StorageFaults.builder().writeRate(0.25).build())"), replay);
        assertTrue(replay.contains("0.1))") && replay.contains("CrashPolicy.PREFIX"), replay);
        assertTrue(replay.contains("config " + config.configHash()), replay);
        assertEquals(config, failure.config());
        SimulationFailure again = assertThrows(SimulationFailure.class,
                () -> SimRunner.of(failure.config()).start(sleepsTooLong));
        assertEquals(firstLine(failure), firstLine(again));
    }

    @Test
    void aTaskFailureCarriesTheReplayLineAsASuppressedNote() {
        SimRunner runner = SimRunner.seeded(6);
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> runner.start(ctx -> {
            ctx.sleep(Duration.ofSeconds(1));
            throw new IllegalStateException("the task's own failure");
        }));
        assertEquals("the task's own failure", thrown.getMessage(), "rethrown unchanged");
        assertEquals(1, thrown.getSuppressed().length);
        assertTrue(thrown.getSuppressed()[0] instanceof ReplayNote);
        assertTrue(thrown.getSuppressed()[0].getMessage().contains("replay: SimRunner.of(SimConfig.builder().seed(6L)"),
                thrown.getSuppressed()[0].getMessage());
    }

    @Test
    void configHashIsStableAndTheReplayLineIsJava() {
        SimConfig config = SimConfig.builder().seed(-9).crashPolicy(CrashPolicy.SUBSET).build();
        assertEquals(config.configHash(), SimConfig.builder().seed(-9).crashPolicy(CrashPolicy.SUBSET).build()
                .configHash());
        assertTrue(config.toJava().startsWith("SimConfig.builder().seed(-9L)"), config.toJava());
        assertTrue(config.toJava().contains(".crashPolicy(CrashPolicy.SUBSET)"), config.toJava());
        assertNotEquals(config.configHash(), config.withSeed(10).configHash());
    }

    @Test
    void invalidConfigurationNamesTheFieldWhenBuilt() {
        InvalidConfigException workers = assertThrows(InvalidConfigException.class,
                () -> SimConfig.builder().workers(0).build());
        assertEquals("SimConfig.workers", workers.field());
        assertTrue(workers.getMessage().contains("workers") && workers.getMessage().contains("was 0"));
        InvalidConfigException ring = assertThrows(InvalidConfigException.class,
                () -> SimConfig.builder().ringEntries(0).build());
        assertEquals("SimConfig.ringEntries", ring.field());
        assertTrue(ring.getMessage().contains("was 0"), ring.getMessage());
        SimConfig.Builder beforeEpoch = SimConfig.builder().start(Instant.parse("1969-12-31T23:59:59Z"));
        InvalidConfigException start = assertThrows(InvalidConfigException.class, beforeEpoch::build);
        assertEquals("SimConfig.start", start.field());
        assertTrue(start.getMessage().contains("1969"), start.getMessage());
        assertNotEquals(SimConfig.builder().seed(1).build(), SimConfig.builder().seed(2).build());
    }

    @Test
    void aHarnessesReplayLineIsTheOneEveryFailurePrints() {
        String line = "replay: Harness.rerun(7)";
        SimRunner failing = SimRunner.of(SimConfig.builder().seed(7).timeLimit(Duration.ofSeconds(1)).build())
                .replayedBy(line);
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> failing.start(ctx -> {
            ctx.sleep(Duration.ofSeconds(2));
            return null;
        }));
        assertEquals(line, failure.replayLine());
        assertTrue(failure.getMessage().contains("\n" + line) && !failure.getMessage().contains("SimRunner.of("),
                failure.getMessage());
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> SimRunner.seeded(7)
                .replayedBy(line).start(ctx -> {
                    throw new IllegalStateException("mine");
                }));
        assertTrue(thrown.getSuppressed()[0].getMessage().endsWith("\n" + line), thrown.getSuppressed()[0].getMessage());
        IllegalArgumentException twoLines = assertThrows(IllegalArgumentException.class,
                () -> SimRunner.seeded(7).replayedBy("replay: a\nreplay: b"));
        assertTrue(twoLines.getMessage().contains("replay: a\nreplay: b"), twoLines.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SimRunner.seeded(7).replayedBy(" "));
    }

    /**
     * What a harness attaches to a runner is what every task of that run finds, by its class; a run with none, or
     * asked for another class, finds null; and the run's course is the same with or without it.
     */
    @Test
    void everyTaskOfARunFindsWhatItsHarnessAttachedAndNothingElse() {
        record Settings(String name) {
        }
        Task<List<Object>> asking = ctx -> {
            SimControl control = SimRunner.control(ctx);
            List<Object> found = new ArrayList<>();
            found.add(control.attachment(Settings.class));
            found.add(control.attachment(String.class));
            found.add(ctx.child("child").spawn(c -> {
                c.sleep(Duration.ofMillis(1));
                return SimRunner.control(c).attachment(Settings.class);
            }).await());
            return found;
        };
        SimRunner attached = SimRunner.seeded(5).attach(new Settings("mine"));
        assertEquals(java.util.Arrays.asList(new Settings("mine"), null, new Settings("mine")),
                attached.start(asking));
        SimRunner plain = SimRunner.seeded(5);
        assertEquals(java.util.Arrays.asList(null, null, null), plain.start(asking));
        assertEquals(plain.digest(), attached.digest(), "an attachment leaves the run's course alone");
        assertThrows(NullPointerException.class, () -> SimRunner.seeded(5).attach(null));
    }
}
