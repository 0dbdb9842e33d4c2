package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.lockstep.Context;
import dev.lockstep.Task;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

/**
 * A cluster test asks {@link NemesisStrategy#forThisRun} for the nemesis its run's strategy chose, from any task of
 * the run, in every lifetime, in a replay of the run, and under {@code @SimulationTest}; a run whose strategy chose
 * none gets the test's own.
 */
class NemesisForThisRunTest {
    private static final Simulations.Plan PLAN = Simulations.Plan.of(FaultConfig.NONE);

    /** What the root task and a task it spawns are told, in order. */
    private static Task<Void> asking(List<NemesisStrategy> told) {
        return ctx -> {
            told.add(NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM));
            told.add(ctx.child("controller").spawn(c -> {
                c.sleep(Duration.ofMillis(1));
                return NemesisStrategy.forThisRun(c, NemesisStrategy.UNIFORM);
            }).await());
            return null;
        };
    }

    @Test
    void everyTaskOfEveryLifetimeGetsTheChoiceAndARunWithoutOneGetsTheTestsOwn() {
        List<NemesisStrategy> told = new ArrayList<>();
        Simulations.Plan votes = PLAN.withCrashes(2, Duration.ofMillis(5))
                .withSearch(SearchSettings.DEFAULT.withNemesis(NemesisStrategy.VOTES));
        Simulations.run(7, votes, asking(told));
        assertTrue(told.size() >= 2, "asked " + told.size() + " times");
        assertEquals(java.util.Collections.nCopies(told.size(), NemesisStrategy.VOTES), told);

        told.clear();
        Simulations.run(7, PLAN.withCrashes(2, Duration.ofMillis(5)), asking(told));
        assertEquals(java.util.Collections.nCopies(told.size(), NemesisStrategy.UNIFORM), told);
    }

    @Test
    void theReplayTextCarriesTheChoiceAndReplaysIt() {
        Simulations.Plan strikes = PLAN.withSearch(SearchSettings.DEFAULT.withNemesis(NemesisStrategy.STRIKES));
        String text = strikes.replayText(3);
        assertTrue(text.endsWith(" nemesis=strikes"), text);
        assertEquals(new Simulations.Replay(3, strikes), Simulations.parseReplay(text));
        assertTrue(!PLAN.replayText(3).contains("nemesis"), PLAN.replayText(3));

        List<NemesisStrategy> told = new ArrayList<>();
        Simulations.replay(text, asking(told));
        assertEquals(List.of(NemesisStrategy.STRIKES, NemesisStrategy.STRIKES), told);

        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay(PLAN.replayText(3) + " nemesis=chaos", asking(told)));
        assertTrue(bad.getMessage().contains("'chaos'") && bad.getMessage().contains("votes"), bad.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> Simulations.parseReplay(PLAN.replayText(3) + " nemesis="));
        assertTrue(empty.getMessage().contains("nemesis strategy ''"), empty.getMessage());
    }

    @Test
    void aFailedRunLeavesItsChoiceToNoLaterRun() {
        Simulations.Plan swarm = PLAN.withSearch(SearchSettings.DEFAULT.withNemesis(NemesisStrategy.SWARM));
        SimulationTestFailure failure = assertThrows(SimulationTestFailure.class, () -> Simulations.run(4, swarm,
                ctx -> {
                    throw new AssertionError("told " + NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM));
                }));
        assertTrue(failure.getMessage().contains("told SWARM"), failure.getMessage());
        assertTrue(failure.replay().endsWith(" nemesis=swarm"), failure.replay());
        List<NemesisStrategy> told = new ArrayList<>();
        Simulations.run(4, PLAN, asking(told));
        assertEquals(List.of(NemesisStrategy.UNIFORM, NemesisStrategy.UNIFORM), told, "the next run on this thread");
    }

    /**
     * Two runs on two threads at once, one in the middle of its own while the other runs whole: each is told its own
     * choice, the one without a choice the test's own.
     */
    @Test
    void twoRunsOnTwoThreadsAtOnceAreEachToldOnlyTheirOwn() throws Exception {
        java.util.concurrent.CountDownLatch votesAsked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean othersDone = new java.util.concurrent.atomic.AtomicBoolean();
        List<NemesisStrategy> votesTold = new java.util.concurrent.CopyOnWriteArrayList<>();
        Simulations.Plan votes = PLAN.withSearch(SearchSettings.DEFAULT.withNemesis(NemesisStrategy.VOTES));
        java.util.concurrent.FutureTask<Void> first = new java.util.concurrent.FutureTask<>(
                () -> Simulations.run(1, votes, ctx -> {
                    votesTold.add(NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM));
                    // Published to the test's thread by the latch; this run stays in its root task, without
                    // yielding, until that thread's runs are over, which the flag's volatile write publishes back.
                    votesAsked.countDown();
                    while (!othersDone.get()) {
                        Thread.onSpinWait();
                    }
                    List<NemesisStrategy> later = new ArrayList<>();
                    asking(later).run(ctx);
                    votesTold.addAll(later);
                    return null;
                }));
        Thread thread = Thread.ofPlatform().name("votes-run").start(first);
        try {
            votesAsked.await();
            List<NemesisStrategy> strikesTold = new ArrayList<>();
            Simulations.run(2, PLAN.withSearch(SearchSettings.DEFAULT.withNemesis(NemesisStrategy.STRIKES)),
                    asking(strikesTold));
            List<NemesisStrategy> plainTold = new ArrayList<>();
            Simulations.run(3, PLAN, asking(plainTold));
            assertEquals(List.of(NemesisStrategy.STRIKES, NemesisStrategy.STRIKES), strikesTold);
            assertEquals(List.of(NemesisStrategy.UNIFORM, NemesisStrategy.UNIFORM), plainTold);
        } finally {
            othersDone.set(true);
            first.get();
            thread.join();
        }
        assertEquals(java.util.Collections.nCopies(votesTold.size(), NemesisStrategy.VOTES), votesTold);
        assertEquals(3, votesTold.size(), votesTold.toString());
    }

    @Test
    void aContextOfAnotherSimulationIsRefused() {
        Context[] first = new Context[1];
        SimRunner.seeded(1).start(ctx -> {
            first[0] = ctx;
            return null;
        });
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> SimRunner.seeded(2).start(
                ctx -> NemesisStrategy.forThisRun(first[0], NemesisStrategy.UNIFORM)));
        assertTrue(refused.getMessage().contains("SimRunner.control"), refused.getMessage());
    }

    /** Every choice passed through withoutHooks makes a nemesis for a protocol that gives none. */
    @Test
    void withoutHooksMakesEveryChoiceRunnableWithoutHooks() {
        NemesisHooks none = new NemesisHooks(null, null, null, null);
        for (NemesisStrategy strategy : NemesisStrategy.values()) {
            NemesisStrategy runnable = strategy.withoutHooks();
            assertDoesNotThrow(() -> runnable.nemesis(1, Duration.ofMillis(10), null, null, null, null, event -> { }),
                    strategy.cliName());
            boolean refusedAlone = strategy != runnable;
            if (refusedAlone) {
                assertEquals(NemesisStrategy.TARGETED, runnable);
                assertThrows(IllegalArgumentException.class,
                        () -> strategy.nemesis(1, Duration.ofMillis(10), null, null, null, null, event -> { }));
            }
            if (runnable == NemesisStrategy.TARGETED) {
                java.util.EnumSet<ClusterNemesis.Disturbance> blind = java.util.EnumSet.copyOf(
                        ClusterNemesis.SINGLE_STEP);
                blind.remove(ClusterNemesis.Disturbance.ELECTION);
                assertEquals(blind, runnable.clusterNemesis(1, Duration.ofMillis(10), none, event -> { })
                        .disturbances(), strategy.cliName());
            }
        }
        assertEquals(java.util.List.of(NemesisStrategy.UNIFORM, NemesisStrategy.TARGETED, NemesisStrategy.SWARM,
                NemesisStrategy.TARGETED, NemesisStrategy.TARGETED, NemesisStrategy.TARGETED),
                java.util.Arrays.stream(NemesisStrategy.values()).map(NemesisStrategy::withoutHooks).toList());
    }

    /**
     * A protocol with some hooks keeps every choice those hooks leave some of its own disturbances: a leader hook
     * alone keeps strikes and placed, a contest hook alone too, and only the vote hook keeps votes; what usableWith
     * returns always builds with the same hooks.
     */
    @Test
    void usableWithKeepsEveryChoiceTheGivenHooksServe() {
        java.util.function.IntSupplier leader = () -> 1;
        java.util.function.IntSupplier election = () -> 2;
        java.util.function.Supplier<ClusterNemesis.Contest> contest = () -> null;
        ClusterNemesis.VoteHook votes = listener -> { };
        assertEquals(NemesisStrategy.STRIKES, NemesisStrategy.STRIKES.usableWith(leader, null, null, null));
        assertEquals(NemesisStrategy.PLACED, NemesisStrategy.PLACED.usableWith(leader, null, null, null));
        assertEquals(NemesisStrategy.PLACED, NemesisStrategy.PLACED.usableWith(null, null, contest, null));
        assertEquals(NemesisStrategy.TARGETED, NemesisStrategy.PLACED.usableWith(null, election, null, votes));
        assertEquals(NemesisStrategy.TARGETED, NemesisStrategy.VOTES.usableWith(leader, election, contest, null));
        assertEquals(NemesisStrategy.VOTES, NemesisStrategy.VOTES.usableWith(null, null, null, votes));
        for (int mask = 0; mask < 16; mask++) {
            java.util.function.IntSupplier l = (mask & 1) != 0 ? leader : null;
            java.util.function.IntSupplier e = (mask & 2) != 0 ? election : null;
            java.util.function.Supplier<ClusterNemesis.Contest> c = (mask & 4) != 0 ? contest : null;
            ClusterNemesis.VoteHook v = (mask & 8) != 0 ? votes : null;
            for (NemesisStrategy strategy : NemesisStrategy.values()) {
                NemesisStrategy runnable = strategy.usableWith(l, e, c, v);
                assertDoesNotThrow(() -> runnable.nemesis(1, Duration.ofMillis(10), l, e, c, v, event -> { }),
                        strategy + " with hooks " + mask);
                boolean builds = true;
                try {
                    strategy.nemesis(1, Duration.ofMillis(10), l, e, c, v, event -> { });
                } catch (IllegalArgumentException refused) {
                    builds = false;
                }
                assertEquals(builds ? strategy : NemesisStrategy.TARGETED, runnable, strategy + " with hooks " + mask);
            }
        }
    }

    @Test
    void aSimulationTestSweepUnderCombinedGetsEachSeedsChoiceAndUnderRandomItsOwn() {
        SearchStrategy combined = SearchStrategy.named("combined");
        Launch sweep = Launch.run(Map.of(SweepSettings.STRATEGY, "combined"), selectClass(Asks.class));
        assertEquals(Asks.SEEDS, sweep.finished.size());
        assertTrue(sweep.finished.stream().allMatch(done -> done.status() == TestExecutionResult.Status.SUCCESSFUL),
                sweep.finished.toString());
        java.util.Set<NemesisStrategy> chosen = java.util.EnumSet.noneOf(NemesisStrategy.class);
        for (long seed = 1; seed <= Asks.SEEDS; seed++) {
            NemesisStrategy expected = combined.settingsFor(seed, SearchSettings.DEFAULT, true).nemesis();
            assertNotNull(expected, "combined chooses a nemesis for seed " + seed);
            assertEquals(expected, Asks.TOLD.get(seed), "seed " + seed);
            chosen.add(expected);
        }
        assertTrue(chosen.size() >= 3, "seeds 1.." + Asks.SEEDS + " chose " + chosen);

        Asks.TOLD.clear();
        Launch.run(Map.of(SweepSettings.STRATEGY, "random"), selectClass(Asks.class));
        assertEquals(Asks.SEEDS, Asks.TOLD.size());
        assertEquals(java.util.Set.of(NemesisStrategy.UNIFORM), java.util.Set.copyOf(Asks.TOLD.values()));
        Asks.TOLD.clear();
    }

    @Test
    void aSimulationTestThatDidNotSayItHasAClusterIsToldToSaySo() {
        Launch sweep = Launch.run(Map.of(SweepSettings.STRATEGY, "combined"), selectClass(AsksUnannounced.class));
        assertEquals(2, sweep.finished.size());
        for (Launch.Finished seed : sweep.finished) {
            assertEquals(TestExecutionResult.Status.FAILED, seed.status(), seed.name());
            assertTrue(seed.failure().getMessage().contains("add clusterNemesis = true"), seed.failure().getMessage());
            assertTrue(!seed.failure().getMessage().contains("nemesis="), seed.failure().getMessage());
        }
    }

    /**
     * The runtime-uring run of a method that did not say it has a cluster is refused as its simulated runs are, from
     * the root task and from a task it spawned, with the same message.
     */
    @Test
    void itsRuntimeUringRunIsRefusedAsItsSimulatedRunsAre() {
        Launch launch = Launch.run(Map.of(SweepSettings.STRATEGY, "combined"),
                selectClass(AsksUnannouncedEverywhere.class));
        assertEquals(List.of("seed 1", "runtime-uring"), launch.names());
        String simulated = launch.finished.get(0).failure().getMessage();
        assertTrue(simulated.contains("add clusterNemesis = true"), simulated);
        Launch.Finished uring = launch.finished.get(1);
        assertEquals(TestExecutionResult.Status.FAILED, uring.status(), uring.name());
        Throwable cause = uring.failure();
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertEquals(IllegalStateException.class, cause.getClass(), uring.failure().toString());
        assertTrue(simulated.contains(cause.getMessage()), cause.getMessage());
        assertEquals(List.of("root refused", "child refused"), AsksUnannouncedEverywhere.REFUSED);
    }

    /** Asks for a nemesis without saying it has a cluster, on both runtimes (run through the launcher only). */
    static final class AsksUnannouncedEverywhere {
        static final List<String> REFUSED = new java.util.concurrent.CopyOnWriteArrayList<>();

        @SimulationTest(seeds = 1, uring = true)
        void asks(Context ctx, SimulationInfo run) {
            if (run.simulated()) {
                NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM);
                return;
            }
            REFUSED.clear();
            String child = ctx.child("controller").spawn(c -> {
                try {
                    NemesisStrategy.forThisRun(c, NemesisStrategy.UNIFORM);
                    return "child told";
                } catch (IllegalStateException refused) {
                    return "child refused";
                }
            }).await();
            try {
                NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM);
                REFUSED.addAll(List.of("root told", child));
            } catch (IllegalStateException refused) {
                REFUSED.addAll(List.of("root refused", child));
                throw refused;
            }
        }
    }

    /** Asks for a nemesis without saying it has a cluster (run through the launcher only). */
    static final class AsksUnannounced {
        @SimulationTest(seeds = 2)
        void asks(Context ctx) {
            NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM);
        }
    }

    /**
     * A sweep that records what each seed's run was told (run through the launcher only): on four threads, so that
     * runs with different choices run at once and a choice given to the wrong run shows.
     */
    static final class Asks {
        static final int SEEDS = 40;
        static final Map<Long, NemesisStrategy> TOLD = new ConcurrentHashMap<>();

        @SimulationTest(seeds = SEEDS, clusterNemesis = true, threads = 4)
        void asks(Context ctx, SimulationInfo run) {
            SimControl control = SimRunner.control(ctx);
            assertEquals(run.seed(), control.config().seed());
            NemesisStrategy told = NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM);
            ctx.sleep(Duration.ofMillis(1));
            assertEquals(told, NemesisStrategy.forThisRun(ctx, NemesisStrategy.UNIFORM), "the same all run long");
            TOLD.put(run.seed(), told);
        }
    }
}
