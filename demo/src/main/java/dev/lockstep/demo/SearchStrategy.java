package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.NemesisStrategy;
import dev.lockstep.testing.SearchSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a search picks its runs: given a seed of the sweep, the run to make. The scoreboard measures each strategy
 * on the same mutants, seed ranges and CPU budget. Whatever a strategy chooses must be in the {@link Scenario.Spec}
 * it returns, so that the spec's replay line reruns the run exactly.
 *
 * <p>Strategies are registered by name in {@link #BY_NAME}, the one place a new one is plugged in.
 */
interface SearchStrategy {
    /** Plain seeds with today's swarm: each seed draws its own set of fault kinds and the nemeses of the workload. */
    SearchStrategy RANDOM = new SearchStrategy() {
        @Override
        public String name() {
            return "random";
        }

        @Override
        public String description() {
            return "plain seeds, each drawing its fault kinds (swarm) and the workload's nemeses";
        }

        @Override
        public Scenario.Spec spec(long seed, Workload workload, InjectedBug bug) {
            FaultConfig faults = Explorer.faultsFor("swarm", seed);
            if (workload.replicated()) {
                faults = RaftScenario.applicable(faults);
            }
            return new Scenario.Spec(seed, faults, workload, bug);
        }
    };

    /**
     * As {@link #RANDOM}, with {@code ClusterNemesis} and every disturbance (isolation, splits, power loss of a
     * majority or of every node, crashes at I/O boundaries and during recovery) aimed at the node that leads, and
     * strikes at the voters of elections, for the Raft; the key-value rows run as with {@link #RANDOM}.
     */
    SearchStrategy TARGETED = withNemesis("targeted", "as random, with a cluster nemesis of every disturbance aimed"
            + " at the leader and at elections (Raft rows)", NemesisStrategy.TARGETED);

    /** As {@link #RANDOM}, with {@code ClusterNemesis.swarm}: each seed its own disturbances, aimed or not. */
    SearchStrategy SWARM = withNemesis("nemesis-swarm", "as random, with a cluster nemesis whose disturbances and"
            + " aim each seed draws (Raft rows)", NemesisStrategy.SWARM);

    /**
     * As {@link #RANDOM}, with the priority scheduling of fibers that the testing module's {@code pct} strategy
     * chooses for the seed ({@link dev.lockstep.testing.SearchStrategy#settingsFor}).
     */
    SearchStrategy PCT = withSettings("pct", "as random, with priority scheduling of fibers (depth and horizon"
            + " chosen by the seed)");

    /**
     * As {@link #RANDOM}, with the fault-point probabilities that the testing module's {@code faultpoints} strategy
     * chooses for the seed: some seeds take the protocol's rare paths at nearly every reach.
     */
    SearchStrategy FAULT_POINTS = withSettings("faultpoints", "as random, with fault-point probabilities chosen by"
            + " the seed (swarm of fault points)");

    /**
     * The testing module's {@code combined} strategy, the default of {@code @SimulationTest} too
     * ({@link dev.lockstep.testing.SearchStrategy#settingsFor(long, SearchSettings, boolean)}): for the Raft,
     * {@code ClusterNemesis} aimed at the leader and at elections with every single-step disturbance (three seeds in
     * sixteen), with the two-step strikes too (three in sixteen), with the placed strikes alone (three in sixteen:
     * {@code nemesis=placed}), with the vote strike alone, placed through the Raft's vote hook (three in sixteen:
     * {@code nemesis=votes}) or a swarm of them (one in four), and the fault-point probabilities of
     * {@link #FAULT_POINTS}; one seed in four also gets the priority scheduling of {@link #PCT}. The key-value rows
     * run with the fault points and priorities (the store has no fault points of its own). Every choice is the
     * seed's, in its replay line.
     */
    SearchStrategy COMBINED = new Named("combined", "targeted, striking, placed, vote-striking or swarm cluster nemesis"
            + " (Raft rows),"
            + " fault-point probabilities and, on one seed in four, fiber priorities, all chosen by the seed",
            (seed, workload, bug) -> {
                // The testing module's combined strategy makes every choice; the spec carries its nemesis apart.
                SearchSettings settings = dev.lockstep.testing.SearchStrategy.named("combined").settingsFor(seed,
                        SearchSettings.DEFAULT, workload.replicated());
                NemesisStrategy nemesis = settings.nemesis() == null ? NemesisStrategy.UNIFORM : settings.nemesis();
                return new Scenario.Spec(seed, RANDOM.spec(seed, workload, bug).faults(), workload, bug, nemesis,
                        settings.withNemesis(null));
            });

    /**
     * The guided explorer ({@link dev.lockstep.testing.GuidedRuns}): for the Raft rows, each range runs the
     * explorer's loop from the range's first seed, each run a seed and a decision chain chosen from what the runs
     * before it reached, within the range's budget ({@link Scoreboard}); the key-value rows, whose seeds are several
     * simulator runs from checkpoints, run as with {@link #RANDOM}. {@link #spec} gives a fresh seed's run.
     */
    SearchStrategy GUIDED = new Named("guided", "the guided explorer: runs branched from earlier runs that reached"
            + " something new (Raft rows; key-value rows as random)", (seed, workload, bug) -> RANDOM.spec(seed,
            workload, bug));

    /** Every strategy, by its command-line name. */
    Map<String, SearchStrategy> BY_NAME = register(RANDOM, PCT, FAULT_POINTS, TARGETED, SWARM, COMBINED, GUIDED);

    /**
     * The command-line name.
     *
     * @return e.g. {@code random}
     */
    String name();

    /**
     * One line for the help text and the scoreboard's header.
     *
     * @return the description
     */
    String description();

    /**
     * The run a seed stands for.
     *
     * @param seed the seed
     * @param workload the workload (a key-value one, or a replicated one with its node count)
     * @param bug the planted bug, or {@link InjectedBug#NONE}
     * @return the run, everything it depends on
     */
    Scenario.Spec spec(long seed, Workload workload, InjectedBug bug);

    /**
     * A strategy by name.
     *
     * @param name the name
     * @return the strategy
     * @throws IllegalArgumentException naming the value and the known names
     */
    static SearchStrategy parse(String name) {
        SearchStrategy strategy = BY_NAME.get(Objects.requireNonNull(name, "name"));
        if (strategy == null) {
            throw new IllegalArgumentException("unknown strategy '" + name + "'; known: "
                    + String.join(", ", BY_NAME.keySet()));
        }
        return strategy;
    }

    private static SearchStrategy withSettings(String name, String description) {
        dev.lockstep.testing.SearchStrategy settings = dev.lockstep.testing.SearchStrategy.named(name);
        return new Named(name, description, (seed, workload, bug) -> {
            Scenario.Spec random = RANDOM.spec(seed, workload, bug);
            return new Scenario.Spec(seed, random.faults(), workload, bug, random.nemesis(),
                    settings.settingsFor(seed, SearchSettings.DEFAULT));
        });
    }

    private static SearchStrategy withNemesis(String name, String description, NemesisStrategy nemesis) {
        return new Named(name, description, (seed, workload, bug) -> {
            Scenario.Spec random = RANDOM.spec(seed, workload, bug);
            return workload.replicated() ? new Scenario.Spec(seed, random.faults(), workload, bug, nemesis) : random;
        });
    }

    /** How a strategy turns a seed into a run. */
    @FunctionalInterface
    interface Specs {
        Scenario.Spec spec(long seed, Workload workload, InjectedBug bug);
    }

    /** A strategy given by its name, its description and how it makes each seed's run. */
    record Named(String name, String description, Specs specs) implements SearchStrategy {
        @Override
        public Scenario.Spec spec(long seed, Workload workload, InjectedBug bug) {
            return specs.spec(seed, workload, bug);
        }
    }

    private static Map<String, SearchStrategy> register(SearchStrategy... strategies) {
        Map<String, SearchStrategy> byName = new LinkedHashMap<>();
        for (SearchStrategy strategy : strategies) {
            byName.put(strategy.name(), strategy);
        }
        return java.util.Collections.unmodifiableMap(byName);
    }
}
