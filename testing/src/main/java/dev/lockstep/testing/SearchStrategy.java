package dev.lockstep.testing;

import dev.lockstep.Task;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.SeededChoices;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How a sweep chooses its runs, selected by name: what {@code @SimulationTest} uses under
 * {@code -Dlockstep.strategy=NAME} and what a scoreboard compares at equal budgets.
 *
 * <ul>
 *   <li>{@code combined}, the default: consecutive seeds, each with the fault-point probabilities of
 *       {@code faultpoints}, on one seed in four the priorities of {@code pct}, and for a test that disturbs a
 *       cluster ({@link SimulationTest#clusterNemesis()}) a nemesis aimed at the leader and at elections
 *       ({@link NemesisStrategy#forThisRun}), all chosen by the seed. It is the default because the scoreboard
 *       (SCOREBOARD.md) shows it best: the one strategy that found every planted protocol bug in every seed range,
 *       at 3 and 5 nodes, and the fastest on nearly every row.</li>
 *   <li>{@code random}: consecutive seeds, each run as its plan says: the plain sweep.</li>
 *   <li>{@code pct}: consecutive seeds, each with priority scheduling of fibers ({@link Priorities}) of a depth
 *       1 to 3 and a horizon of 500, 5,000 or 50,000 fiber steps, chosen by the seed.</li>
 *   <li>{@code faultpoints}: consecutive seeds, each with its own fault-point probabilities
 *       ({@link FaultPoints}), chosen by the seed: enabled with 0.25, 0.5 or 1, firing with 0.01, 0.1, 0.25, 0.5
 *       or 0.9, so that some runs take a point's rare path at nearly every reach (swarm testing of fault
 *       points).</li>
 *   <li>{@code guided}: the guided explorer: runs that reached something no earlier run did (a signal of
 *       {@link dev.lockstep.sim.Coverage}: a fault point fired, an event kind, a node transition, a disturbance
 *       combination, a {@code sometimes} label seen true, a {@code reached} value) are kept, and most later runs
 *       replay one of them up to a random draw and go on from a fresh seed ({@link dev.lockstep.sim.DecisionChain});
 *       the others are fresh seeds. Its choices come from its own seed, so the same seed explores the same runs.
 *       Runs depend on the runs before them, so they go one at a time.</li>
 * </ul>
 * A run a strategy chose replays from the line its failure prints ({@link Simulations#replay}): its seed, plan,
 * priorities, fault points, decision chain and nemesis are all in it.
 *
 * <p>Instances are immutable and may be shared; {@link #search} runs on the calling thread.
 */
public abstract sealed class SearchStrategy {
    /** The names {@link #named} knows, the default first. */
    public static final List<String> NAMES = List.of("combined", "random", "pct", "faultpoints", "guided");

    private final String name;

    private SearchStrategy(String name) {
        this.name = name;
    }

    /**
     * The strategy of a name.
     *
     * @param name one of {@link #NAMES}
     * @return the strategy
     * @throws IllegalArgumentException naming an unknown name and the known ones
     */
    public static SearchStrategy named(String name) {
        Objects.requireNonNull(name, "name");
        return switch (name) {
            case "random" -> new Random();
            case "pct" -> new Pct();
            case "faultpoints" -> new FaultPointSwarm();
            case "guided" -> new Guided();
            case "combined" -> new Combined();
            default -> throw new IllegalArgumentException("unknown search strategy '" + name + "'; known: "
                    + String.join(", ", NAMES));
        };
    }

    /**
     * The strategy's name.
     *
     * @return one of {@link #NAMES}
     */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * Whether each run depends on the runs before it ({@code guided}), so that runs go one at a time in order; the
     * other strategies choose each seed's settings from the seed alone ({@link #settingsFor}), so their runs may go
     * on any thread, shard or machine.
     *
     * @return whether runs are sequential
     */
    public boolean sequential() {
        return false;
    }

    /**
     * The settings of the run of {@code seed}, for a strategy whose runs are independent: what a sweep of its own
     * (another workload's, a scoreboard's) sets on that seed's {@link dev.lockstep.sim.SimConfig} to run it as this
     * strategy does. The same for every call with the same arguments.
     *
     * @param seed the run's seed
     * @param start the settings before the strategy's (usually {@link SearchSettings#DEFAULT})
     * @return the settings
     * @throws UnsupportedOperationException for a {@link #sequential()} strategy, whose runs depend on the runs
     *     before them (use {@link #search})
     */
    public SearchSettings settingsFor(long seed, SearchSettings start) {
        if (sequential()) {
            throw new UnsupportedOperationException("the " + name + " strategy chooses each run from the runs before"
                    + " it: run it with search()");
        }
        return start;
    }

    /**
     * As {@link #settingsFor(long, SearchSettings)}, for a run that may have a cluster whose nemesis the strategy
     * chooses ({@link SearchSettings#nemesis()}, which the run's test asks for with
     * {@link NemesisStrategy#forThisRun}; {@code @SimulationTest} says so with
     * {@link SimulationTest#clusterNemesis()}). Only {@code combined} chooses one, and only for such a run; its other
     * choices for a cluster's seed differ from those for the same seed without one (it draws the nemesis first).
     * {@link #settingsFor(long, SearchSettings)} is this without a cluster.
     *
     * @param seed the run's seed
     * @param start the settings before the strategy's
     * @param cluster whether the run disturbs a cluster's nodes with the nemesis the strategy chooses
     * @return the settings
     * @throws UnsupportedOperationException for a {@link #sequential()} strategy
     */
    public SearchSettings settingsFor(long seed, SearchSettings start, boolean cluster) {
        return settingsFor(seed, start);
    }

    /** The plan of the run of {@code seed} without a cluster, for the strategies whose runs are independent. */
    Simulations.Plan planFor(long seed, Simulations.Plan base) {
        return planFor(seed, base, false);
    }

    /** The plan of the run of {@code seed}, for the strategies whose runs are independent. */
    Simulations.Plan planFor(long seed, Simulations.Plan base, boolean cluster) {
        return sequential() ? base : base.withSearch(settingsFor(seed, base.search(), cluster));
    }

    /**
     * A session of this strategy starting at {@code firstSeed}: the runs it chooses, one after another.
     *
     * @param planOf the plan of a run of a seed before the strategy's own settings (the faults of a swarm differ
     *               from seed to seed)
     */
    Session session(long firstSeed, java.util.function.LongFunction<Simulations.Plan> planOf) {
        return new Session() {
            private long next = firstSeed;

            @Override
            public Candidate next() {
                long seed = next++;
                return new Candidate(seed, planFor(seed, planOf.apply(seed)));
            }

            @Override
            public void observe(Candidate run, RunRecord record) {
            }
        };
    }

    /** One run a session chose. */
    record Candidate(long seed, Simulations.Plan plan) {
    }

    /** The runs of one search, in order. Confined to the thread that searches. */
    interface Session {
        /** The next run to make. */
        Candidate next();

        /** What that run reached; called once per {@link #next} whose run ended without failing. */
        void observe(Candidate run, RunRecord record);
    }

    /**
     * Runs up to {@code maxRuns} runs of {@code body} as this strategy chooses them, on the calling thread, until
     * the first failure or the end of the budget.
     *
     * @param firstSeed where the strategy starts: the first seed of a sweep, the guided explorer's own seed
     * @param maxRuns the most runs, at least 1
     * @param maxCpu the most CPU time of the simulator's thread over all runs ({@link
     *               dev.lockstep.sim.SimRunner#simulatorCpuNanos()}), checked between runs; a search cut by it
     *               stops at a point that depends on the machine, though every run it made is that of its seed
     * @param plan workers, faults, crashes and limits of every run; its search settings are the start the
     *             strategy varies, as for a run without a cluster ({@link #settingsFor(long, SearchSettings)})
     * @param body makes the task of one run, called once per run, so that what a task keeps across its lifetimes
     *             starts fresh each run
     * @return the result: the first failure with its replay line, or none
     * @throws IllegalArgumentException naming a budget below 1 run or a negative CPU time
     */
    public SearchResult search(long firstSeed, long maxRuns, Duration maxCpu, Simulations.Plan plan,
                               Supplier<? extends Task<?>> body) {
        if (maxRuns < 1) {
            throw new IllegalArgumentException("a search needs at least 1 run, was " + maxRuns);
        }
        if (maxCpu.isNegative()) {
            throw new IllegalArgumentException("a search's CPU budget must not be negative, was " + maxCpu);
        }
        Session session = session(firstSeed, seed -> plan);
        SearchResult.Tally tally = new SearchResult.Tally();
        long cpuLimit = maxCpu.toNanos();
        for (long run = 0; run < maxRuns && tally.cpuNanos < cpuLimit; run++) {
            Candidate candidate = session.next();
            RunRecord record = new RunRecord();
            @SuppressWarnings("unchecked")
            Task<Object> task = (Task<Object>) body.get();
            try {
                Simulations.execute(candidate.seed(), candidate.plan(), task, false, record::add);
            } catch (SimulationTestFailure failure) {
                tally.add(record);
                return tally.result(name, run + 1, failure);
            }
            tally.add(record);
            session.observe(candidate, record);
        }
        return tally.result(name, tally.runs, null);
    }

    /** A generator of this strategy's own choices for one seed: its draws are not the run's. */
    static SeededChoices choices(long seed, long salt) {
        return new SeededChoices(seed * 0x9E3779B97F4A7C15L + salt);
    }

    /** Plain consecutive seeds. */
    private static final class Random extends SearchStrategy {
        Random() {
            super("random");
        }
    }

    /** Consecutive seeds, each with priority scheduling its seed chooses. */
    private static final class Pct extends SearchStrategy {
        private static final long[] HORIZONS = {500, 5_000, 50_000};

        Pct() {
            super("pct");
        }

        @Override
        public SearchSettings settingsFor(long seed, SearchSettings start) {
            SeededChoices choices = choices(seed, 0x5043L);
            Priorities priorities = Priorities.of(1 + choices.nextInt(3),
                    HORIZONS[choices.nextInt(HORIZONS.length)]);
            return new SearchSettings(start.faultPoints(), priorities, start.chain(), start.nemesis());
        }
    }

    /** Consecutive seeds, each with fault-point probabilities its seed chooses. */
    private static final class FaultPointSwarm extends SearchStrategy {
        private static final double[] ENABLE = {0.25, 0.5, 1};
        private static final double[] FIRE = {0.01, 0.1, 0.25, 0.5, 0.9};

        FaultPointSwarm() {
            super("faultpoints");
        }

        @Override
        public SearchSettings settingsFor(long seed, SearchSettings start) {
            SeededChoices choices = choices(seed, 0x4650L);
            FaultPoints points = new FaultPoints(ENABLE[choices.nextInt(ENABLE.length)],
                    FIRE[choices.nextInt(FIRE.length)]);
            return new SearchSettings(points, start.priorities(), start.chain(), start.nemesis());
        }
    }

    /**
     * What works together, as the scoreboard measured it (SCOREBOARD.md): the fault-point probabilities of
     * {@link FaultPointSwarm}, on one seed in four the priorities of {@link Pct}, and for a cluster a nemesis
     * aimed at the leader and at elections: every single-step disturbance ({@link NemesisStrategy#TARGETED}, three
     * seeds in sixteen), with the two-step strikes too ({@link NemesisStrategy#STRIKES}, three in sixteen), the
     * placed strikes alone ({@link NemesisStrategy#PLACED}, three in sixteen), the vote strike alone
     * ({@link NemesisStrategy#VOTES}, three in sixteen) or a swarm of them ({@link NemesisStrategy#SWARM}, one in
     * four). Its own draws come from a generator of the seed's, never the run's. A start that already names a
     * nemesis ({@link SearchSettings#nemesis()}, e.g. a replay's or a caller's) keeps it unchanged, with or without a
     * cluster: only a nemesis drawn here is refined; without a cluster and without a start's nemesis, none.
     */
    private static final class Combined extends SearchStrategy {
        private final SearchStrategy points = new FaultPointSwarm();
        private final SearchStrategy priorities = new Pct();

        Combined() {
            super("combined");
        }

        @Override
        public SearchSettings settingsFor(long seed, SearchSettings start) {
            return settingsFor(seed, start, false);
        }

        @Override
        public SearchSettings settingsFor(long seed, SearchSettings start, boolean cluster) {
            SearchSettings settings = points.settingsFor(seed, start);
            // The scoreboard's figures were measured with these draws, in this order: a change re-measures them.
            java.util.SplittableRandom choices = new java.util.SplittableRandom(seed * 0x9E3779B97F4A7C15L
                    + 0x434F4DL);
            // A cluster's seed draws its nemesis even when the start has one, so that its priorities are the same.
            NemesisStrategy drawn = !cluster ? null
                    : choices.nextInt(4) == 0 ? NemesisStrategy.SWARM : NemesisStrategy.TARGETED;
            if (choices.nextInt(4) == 0) {
                settings = priorities.settingsFor(seed, settings);
            }
            if (start.nemesis() != null || drawn == null) {
                return settings.withNemesis(start.nemesis());   // the caller's choice, as it is
            }
            if (drawn == NemesisStrategy.TARGETED && choices.nextInt(2) == 0) {
                // Drawn last, so a seed's targeted or swarm choice and its priorities do not depend on it.
                drawn = choices.nextInt(2) == 0 ? NemesisStrategy.PLACED : NemesisStrategy.STRIKES;
            } else if (drawn == NemesisStrategy.TARGETED && choices.nextInt(2) == 0) {
                drawn = NemesisStrategy.VOTES;
            }
            return settings.withNemesis(drawn);
        }
    }

    /** The guided explorer: see {@link GuidedExplorer}. */
    private static final class Guided extends SearchStrategy {
        Guided() {
            super("guided");
        }

        @Override
        public boolean sequential() {
            return true;
        }

        @Override
        Session session(long firstSeed, java.util.function.LongFunction<Simulations.Plan> planOf) {
            return new GuidedExplorer(firstSeed, planOf);
        }
    }
}
