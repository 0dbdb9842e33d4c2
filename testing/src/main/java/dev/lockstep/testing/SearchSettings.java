package dev.lockstep.testing;

import dev.lockstep.sim.DecisionChain;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.SimConfig;
import java.util.Objects;

/**
 * The simulator settings a {@link SearchStrategy} chooses per run, beside the seed: how often fault points fire,
 * priority scheduling, and the decision chain of a branched run. Part of a {@link Simulations.Plan} and of its
 * replay text, so a run found by any strategy replays from its printed line.
 *
 * @param faultPoints see {@link SimConfig#faultPoints()}
 * @param priorities see {@link SimConfig#priorities()}
 * @param chain see {@link SimConfig#decisionChain()}
 */
public record SearchSettings(FaultPoints faultPoints, Priorities priorities, DecisionChain chain) {
    /** The simulator's defaults: fault points as FoundationDB's, no priorities, no chain. */
    public static final SearchSettings DEFAULT = new SearchSettings(FaultPoints.DEFAULT, Priorities.OFF,
            DecisionChain.NONE);

    /** Checks that nothing is null. */
    public SearchSettings {
        Objects.requireNonNull(faultPoints, "faultPoints");
        Objects.requireNonNull(priorities, "priorities");
        Objects.requireNonNull(chain, "chain");
    }

    /**
     * These settings with another decision chain.
     *
     * @param newChain the chain
     * @return the settings
     */
    public SearchSettings withChain(DecisionChain newChain) {
        return new SearchSettings(faultPoints, priorities, newChain);
    }

    /**
     * Sets these settings on a configuration being built.
     *
     * @param builder the builder
     * @return the builder
     */
    public SimConfig.Builder applyTo(SimConfig.Builder builder) {
        return builder.faultPoints(faultPoints).priorities(priorities).decisionChain(chain);
    }

    /**
     * The part of a replay text ({@link Simulations.Plan#replayText}) that says these settings.
     *
     * @return empty at the defaults, else {@code " faultPoints=E:F"}, {@code " priorities=D:S"},
     *     {@code " chain=K:S,..."} for each setting that differs
     */
    public String replayText() {
        return (faultPoints.equals(FaultPoints.DEFAULT) ? "" : " faultPoints=" + faultPoints)
                + (priorities.on() ? " priorities=" + priorities : "")
                + (chain.segments().isEmpty() ? "" : " chain=" + chain);
    }
}
