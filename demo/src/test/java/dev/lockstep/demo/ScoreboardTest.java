package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.NemesisStrategy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The scoreboard: its failures replay exactly, its medians and its table say what the ranges found. */
class ScoreboardTest {
    @ParameterizedTest
    @ValueSource(strings = {"random", "pct", "faultpoints", "targeted", "nemesis-swarm", "combined"})
    @Timeout(300) // a bound for the loaded 2-core machine, not an expectation
    void aFailureTheScoreboardFindsReplaysExactlyFromItsLine(String strategy) throws Exception {
        Scoreboard.Settings settings = new Scoreboard.Settings(List.of(new Scoreboard.Target(
                InjectedBug.VOTE_WITHOUT_LOG_CHECK, Workload.REPLICATED)), SearchStrategy.parse(strategy), 1e6, 20, 2,
                2);
        List<Scoreboard.Row> rows = Scoreboard.run(settings, new AtomicInteger());
        Scoreboard.Row row = rows.getFirst();
        assertEquals(2, row.found(), "vote-without-log-check found in both ranges of 20 seeds: " + row);
        assertEquals(List.of(1L, 1 + Scoreboard.RANGE_STRIDE), row.ranges().stream()
                .map(Scoreboard.RangeResult::firstSeed).toList(), "disjoint ranges");
        for (Scoreboard.RangeResult range : row.ranges()) {
            assertTrue(range.cpuNanos() > 0 && range.seeds() >= 1, range.toString());
            Scenario.Result found = range.failure();
            assertEquals(SearchStrategy.parse(strategy).spec(found.spec().seed(), Workload.REPLICATED,
                    InjectedBug.VOTE_WITHOUT_LOG_CHECK), found.spec(), "the strategy's choice is in the spec");
            Scenario.Result replayed = Scenario.run(Scenario.Spec.parse(Explorer.replayLine(found)), 0);
            assertEquals(found.failure(), replayed.failure(), "the replay line reruns the failure");
            assertEquals(found.digest(), replayed.digest(), "the same run, decision for decision");
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Scoreboard.print(new PrintStream(printed, true, StandardCharsets.UTF_8), settings, rows);
        String table = printed.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("replay: ./lockstep replay " + Explorer.replayLine(row.ranges().getFirst()
                .failure())), table);
    }

    /**
     * The guided strategy runs the explorer's loop in each range, within its budget: what it found is a run of a
     * seed and a decision chain, and the replay line, chain included, reruns it exactly.
     */
    @Test
    @Timeout(300) // a bound for the loaded 2-core machine, not an expectation
    void theGuidedStrategyRunsItsLoopPerRangeAndItsFailureReplaysExactly() throws Exception {
        Scoreboard.Settings settings = new Scoreboard.Settings(List.of(new Scoreboard.Target(
                InjectedBug.VOTE_WITHOUT_LOG_CHECK, Workload.REPLICATED)), SearchStrategy.GUIDED, 1e6, 30, 2, 2);
        Scoreboard.Row row = Scoreboard.run(settings, new AtomicInteger()).getFirst();
        assertEquals(2, row.found(), "vote-without-log-check found in both ranges of 30 guided runs: " + row);
        for (Scoreboard.RangeResult range : row.ranges()) {
            assertTrue(range.cpuNanos() > 0 && range.seeds() >= 1, range.toString());
            Scenario.Result found = range.failure();
            String line = Explorer.replayLine(found);
            assertEquals(found.spec(), Scenario.Spec.parse(line), line);
            Scenario.Result replayed = Scenario.run(Scenario.Spec.parse(line), 0);
            assertEquals(found.failure(), replayed.failure(), "the replay line reruns the failure");
            assertEquals(found.digest(), replayed.digest(), "the same run, decision for decision");
        }
        // A branched run (a seed and a chain) replays exactly from its line too.
        dev.lockstep.testing.GuidedRuns explorer = new dev.lockstep.testing.GuidedRuns(1);
        Scenario.Result chained = null;
        for (int run = 0; run < 12 && chained == null; run++) {
            dev.lockstep.testing.GuidedRuns.Choice choice = explorer.next();
            Scenario.Spec fresh = SearchStrategy.RANDOM.spec(choice.seed(), Workload.REPLICATED, InjectedBug.NONE);
            Scenario.Spec spec = new Scenario.Spec(choice.seed(), fresh.faults(), Workload.REPLICATED,
                    InjectedBug.NONE, fresh.nemesis(), fresh.search().withChain(choice.chain()));
            List<dev.lockstep.sim.Coverage> reached = new java.util.ArrayList<>();
            long[] draws = {0};
            Scenario.Result result = RaftScenario.run(spec, 0, runner -> {
                reached.add(runner.coverage());
                draws[0] += runner.stats().draws();
            });
            assertTrue(result.passed(), result.failure());
            if (!choice.chain().segments().isEmpty()) {
                chained = result;
            }
            explorer.observe(choice, reached, draws[0]);
        }
        assertTrue(chained != null, "no branched run in 12 guided runs");
        assertTrue(Explorer.replayLine(chained).contains(":chain="), Explorer.replayLine(chained));
        assertEquals(chained.digest(), Scenario.run(Scenario.Spec.parse(Explorer.replayLine(chained)), 0).digest());

        // A branched run's line carries its chain, read back as the simulator's; the key-value runs take none.
        Scenario.Spec branched = new Scenario.Spec(5, FaultConfig.NONE, Workload.REPLICATED, InjectedBug.FIGURE_8,
                NemesisStrategy.UNIFORM, dev.lockstep.testing.SearchSettings.DEFAULT.withChain(
                        dev.lockstep.sim.DecisionChain.parse("120:-7,300:9")));
        assertTrue(branched.line().endsWith(":chain=120/-7,300/9"), branched.line());
        assertEquals(branched, Scenario.Spec.parse(branched.line()));
        IllegalArgumentException kv = assertThrows(IllegalArgumentException.class,
                () -> Scenario.Spec.parse("kv:seed=5:workload=mixed:chain=120/-7"));
        assertTrue(kv.getMessage().contains("needs a replicated workload"), kv.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Scenario.Spec.parse("kv:seed=5:workload=replicated:chain=120:-7"));
    }

    @Test
    void aNemesisOtherThanUniformIsInTheReplayLineAndOnlyForAReplicatedWorkload() {
        Scenario.Spec spec = new Scenario.Spec(7, FaultConfig.parse("crash"), Workload.REPLICATED_5,
                InjectedBug.FIGURE_8, NemesisStrategy.TARGETED);
        assertEquals("kv:seed=7:faults=crash:workload=replicated-5:bug=figure-8:nemesis=targeted", spec.line());
        assertEquals(spec, Scenario.Spec.parse(spec.line()));
        for (NemesisStrategy nemesis : NemesisStrategy.values()) {
            if (nemesis != NemesisStrategy.UNIFORM) {
                // votes too: the key-value workloads have no nodes, and no vote hook, for it to strike.
                IllegalArgumentException kv = assertThrows(IllegalArgumentException.class,
                        () -> Scenario.Spec.parse("kv:seed=7:workload=mixed:nemesis=" + nemesis.cliName()));
                assertTrue(kv.getMessage().contains("nemesis " + nemesis.cliName() + " disturbs a cluster's nodes"),
                        kv.getMessage());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Scenario.Spec.parse("kv:seed=7:nemesis=bogus"));
    }

    @Test
    void theSearchSettingsOfASeedAreInTheReplayLineAndReadBack() {
        Scenario.Spec points = SearchStrategy.FAULT_POINTS.spec(3, Workload.REPLICATED, InjectedBug.FIGURE_8);
        Scenario.Spec pct = SearchStrategy.PCT.spec(3, Workload.REPLICATED, InjectedBug.FIGURE_8);
        assertTrue(points.line().matches(".*:faultpoints=[0-9.]+/[0-9.]+$"), points.line());
        assertTrue(pct.line().matches(".*:priorities=[0-9]+/[0-9]+$"), pct.line());
        assertEquals(points, Scenario.Spec.parse(points.line()));
        assertEquals(pct, Scenario.Spec.parse(pct.line()));
        assertEquals("kv:seed=3:faults=none:workload=mixed:bug=none", Scenario.Spec.parse(
                "kv:seed=3:faults=none:workload=mixed:bug=none").line(), "the defaults say nothing");
        for (String bad : new String[] {"kv:seed=1:faultpoints=0.5", "kv:seed=1:faultpoints=2/0.5",
                "kv:seed=1:priorities=x/9", "kv:seed=1:priorities=1:9"}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> Scenario.Spec.parse(bad), bad);
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(), bad);
        }
    }

    @Test
    void theMedianCountsARangeThatFoundNothingAsLongerThanAny() {
        Scenario.Spec spec = new Scenario.Spec(1, FaultConfig.NONE, Workload.REPLICATED, InjectedBug.NONE);
        Scenario.Result failed = new Scenario.Result(spec, "boom", List.of(), List.of(), 0, 0, 0, 0, 0, 0, 0, "ab", 0);
        Scoreboard.Target unmutated = new Scoreboard.Target(InjectedBug.NONE, Workload.REPLICATED);
        Scoreboard.Row twoOfThree = new Scoreboard.Row(unmutated, List.of(
                new Scoreboard.RangeResult(1, 10, 1_000_000_000L, failed),
                new Scoreboard.RangeResult(2, 50, 9_000_000_000L, null),
                new Scoreboard.RangeResult(3, 30, 3_000_000_000L, failed)));
        assertEquals(30, twoOfThree.median(Scoreboard.RangeResult::seeds));
        assertEquals(3.0, twoOfThree.median(r -> r.cpuNanos() / 1e9));
        Scoreboard.Row oneOfThree = new Scoreboard.Row(unmutated, List.of(twoOfThree.ranges().get(0),
                twoOfThree.ranges().get(1), twoOfThree.ranges().get(1)));
        assertEquals(Double.POSITIVE_INFINITY, oneOfThree.median(Scoreboard.RangeResult::seeds));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Scoreboard.print(new PrintStream(printed, true, StandardCharsets.UTF_8), new Scoreboard.Settings(
                List.of(unmutated), SearchStrategy.RANDOM, 1, 10, 3, 1), List.of(oneOfThree));
        String table = printed.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("not found") && table.contains("1/3"), table);
        assertTrue(table.contains("FALSE ALARM: the unmutated raft failed at seed 1: boom"), table);
    }

    @Test
    void exploreRunsTheScoreboardsBestStrategyForTheWorkloadUnlessToldAndKeepsItsProfilesFaults() {
        for (long seed = 1; seed <= 8; seed++) {
            Explorer.Settings raft = new Explorer.Settings(8, 1, "partition", Workload.REPLICATED,
                    InjectedBug.FIGURE_8, 1, false);
            Scenario.Spec combined = SearchStrategy.COMBINED.spec(seed, Workload.REPLICATED, InjectedBug.FIGURE_8);
            assertEquals(new Scenario.Spec(seed, FaultConfig.parse("partition"), Workload.REPLICATED,
                    InjectedBug.FIGURE_8, combined.nemesis(), combined.search()), Explorer.specFor(raft, seed),
                    "the Raft's default is combined, with the profile's faults");
            Explorer.Settings store = new Explorer.Settings(8, 1, "crash", Workload.MIXED, InjectedBug.NONE, 1,
                    false);
            assertEquals(new Scenario.Spec(seed, FaultConfig.parse("crash"), Workload.MIXED, InjectedBug.NONE),
                    Explorer.specFor(store, seed), "the store's default is random");
            Explorer.Settings told = new Explorer.Settings(8, 1, "partition", Workload.REPLICATED,
                    InjectedBug.FIGURE_8, 1, false, Shard.ALL, SearchStrategy.RANDOM);
            assertEquals(new Scenario.Spec(seed, FaultConfig.parse("partition"), Workload.REPLICATED,
                    InjectedBug.FIGURE_8), Explorer.specFor(told, seed));
        }
        CommandLineRun bogus = CommandLineRun.run("explore", "--seeds", "1", "--strategy", "bogus");
        assertEquals(2, bogus.status());
        assertTrue(bogus.errors().contains("--strategy: unknown strategy 'bogus'"), bogus.errors());
        CommandLineRun guided = CommandLineRun.run("explore", "--seeds", "1", "--strategy", "guided");
        assertEquals(2, guided.status());
        assertTrue(guided.errors().contains("--strategy guided: the demo's sweep runs seeds"), guided.errors());
    }

    @Test
    void anUnknownStrategyOrNodeCountIsRefusedNamingIt() {
        IllegalArgumentException strategy = assertThrows(IllegalArgumentException.class,
                () -> SearchStrategy.parse("bogus"));
        assertTrue(strategy.getMessage().contains("unknown strategy 'bogus'; known: random, pct, faultpoints,"
                + " targeted, nemesis-swarm, combined, guided"), strategy.getMessage());
        for (String[] args : new String[][] {{"--strategy", "bogus"}, {"--nodes", "4"},
                {"--budget", "0"},
                {"--ranges", "0"}, {"--mutants", "figure-9"}}) {
            String[] full = new String[args.length + 1];
            full[0] = "scoreboard";
            System.arraycopy(args, 0, full, 1, args.length);
            CommandLineRun run = CommandLineRun.run(full);
            assertEquals(2, run.status(), String.join(" ", args));
            assertTrue(run.errors().contains(args[1]), run.errors());
        }
    }

    @Test
    void mutantsSelectsTheRowsOfTheNamedBugsAtEveryNodeCountAndNoneTheUnmutatedRows() {
        assertEquals(List.of(new Scoreboard.Target(InjectedBug.FIGURE_8, Workload.REPLICATED),
                new Scoreboard.Target(InjectedBug.FIGURE_8, Workload.REPLICATED_5)),
                Scoreboard.rows(List.of(3, 5), List.of("figure-8")));
        assertEquals(List.of(new Scoreboard.Target(InjectedBug.NONE, Workload.MIXED),
                new Scoreboard.Target(InjectedBug.NONE, Workload.REPLICATED),
                new Scoreboard.Target(InjectedBug.NONE, Workload.REPLICATED_5)),
                Scoreboard.rows(List.of(3, 5), List.of("none")));
        assertEquals(List.of(new Scoreboard.Target(InjectedBug.ACK_BEFORE_SYNC, Workload.MIXED),
                new Scoreboard.Target(InjectedBug.UNSYNCED_VOTE, Workload.REPLICATED)),
                Scoreboard.rows(List.of(3), List.of("unsynced-vote", " ack-before-sync")),
                "the table's order, whatever the order named");
        assertEquals(Scoreboard.rows(List.of(3, 5)), Scoreboard.rows(List.of(3, 5), null), "no --mutants: every row");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Scoreboard.rows(List.of(3), List.of("figure-9")));
        assertTrue(unknown.getMessage().contains("figure-9"), unknown.getMessage());
    }
}
