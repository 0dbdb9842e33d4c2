package dev.lockstep.demo;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.NemesisStrategy;
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
     * majority, crashes at I/O boundaries) aimed at the node that leads, for the Raft; the key-value rows run as
     * with {@link #RANDOM}.
     */
    SearchStrategy TARGETED = withNemesis("targeted", "as random, with a cluster nemesis of every disturbance aimed"
            + " at the leader (Raft rows)", NemesisStrategy.TARGETED);

    /** As {@link #RANDOM}, with {@code ClusterNemesis.swarm}: each seed its own disturbances, aimed or not. */
    SearchStrategy SWARM = withNemesis("nemesis-swarm", "as random, with a cluster nemesis whose disturbances and"
            + " aim each seed draws (Raft rows)", NemesisStrategy.SWARM);

    /** Every strategy, by its command-line name. */
    Map<String, SearchStrategy> BY_NAME = register(RANDOM, TARGETED, SWARM);

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

    private static SearchStrategy withNemesis(String name, String description, NemesisStrategy nemesis) {
        return new SearchStrategy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public Scenario.Spec spec(long seed, Workload workload, InjectedBug bug) {
                Scenario.Spec random = RANDOM.spec(seed, workload, bug);
                return workload.replicated() ? new Scenario.Spec(seed, random.faults(), workload, bug, nemesis)
                        : random;
            }
        };
    }

    private static Map<String, SearchStrategy> register(SearchStrategy... strategies) {
        Map<String, SearchStrategy> byName = new LinkedHashMap<>();
        for (SearchStrategy strategy : strategies) {
            byName.put(strategy.name(), strategy);
        }
        return java.util.Collections.unmodifiableMap(byName);
    }
}
