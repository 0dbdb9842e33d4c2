package dev.lockstep.testing;

import dev.lockstep.sim.Coverage;
import dev.lockstep.sim.DecisionChain;
import dev.lockstep.sim.SimRunner;
import java.util.List;
import java.util.Objects;

/**
 * The guided explorer of {@link SearchStrategy} {@code guided} for a tool that makes its runs itself (a scoreboard, a
 * harness of its own around {@link SimRunner}): it chooses each run as a seed and a {@link DecisionChain}, which the
 * tool sets on the run's configuration ({@code SimConfig.Builder.decisionChain}), and learns from what each run
 * reached ({@link SimRunner#coverage()}). The choices are those {@code guided} makes under {@code @SimulationTest}:
 * the same first seed and the same observations give the same runs.
 *
 * <p>Confined to one thread: runs depend on the runs before them, so they are made one at a time, in order. Memory:
 * one entry per run that reached something new.
 */
public final class GuidedRuns {
    /**
     * One run the explorer chose.
     *
     * @param seed the run's seed
     * @param chain the decision chain to run it with ({@link DecisionChain#NONE} for a fresh seed)
     */
    public record Choice(long seed, DecisionChain chain) {
        /** Checks that the chain is there. */
        public Choice {
            Objects.requireNonNull(chain, "chain");
        }
    }

    /** A plan that carries only the chain: the tool's runs have plans of their own. */
    private static final Simulations.Plan CARRIER = Simulations.Plan.of(FaultConfig.NONE);

    private final GuidedExplorer explorer;
    private SearchStrategy.Candidate pending;

    /**
     * An explorer whose fresh seeds start at {@code firstSeed}, which also seeds its own choices.
     *
     * @param firstSeed the first fresh seed
     */
    public GuidedRuns(long firstSeed) {
        this.explorer = new GuidedExplorer(firstSeed, seed -> CARRIER);
    }

    /**
     * The next run to make.
     *
     * @return its seed and chain
     * @throws IllegalStateException if the run chosen before was not {@linkplain #observe observed} (runs are
     *     made one after another)
     */
    public Choice next() {
        if (pending != null) {
            throw new IllegalStateException("the run chosen before (seed " + pending.seed() + ") was not observed");
        }
        pending = explorer.next();
        return new Choice(pending.seed(), pending.plan().search().chain());
    }

    /**
     * What the run {@link #next} chose reached, once it ended without failing (a failing run ends the search).
     *
     * @param run the run, as {@link #next} returned it
     * @param lifetimes the coverage of each of the run's simulator runs, in order
     * @param draws the draws the run made over all of them ({@code SimStats.draws})
     * @throws IllegalArgumentException if {@code run} is not the run {@link #next} chose last
     */
    public void observe(Choice run, List<Coverage> lifetimes, long draws) {
        if (pending == null || pending.seed() != run.seed()
                || !pending.plan().search().chain().equals(run.chain())) {
            throw new IllegalArgumentException("observed " + run + ", which is not the run chosen last");
        }
        RunRecord record = new RunRecord();
        record.add(List.copyOf(lifetimes), draws);
        SearchStrategy.Candidate candidate = pending;
        pending = null;
        explorer.observe(candidate, record);
    }
}
