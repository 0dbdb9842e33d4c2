package dev.lockstep.testing;

import dev.lockstep.sim.DecisionChain;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.SimConfig;
import java.util.Objects;

/**
 * The settings a {@link SearchStrategy} chooses per run, beside the seed: how often fault points fire, priority
 * scheduling, the decision chain of a branched run, and the nemesis a cluster test is asked to run. Part of a
 * {@link Simulations.Plan} and of its replay text, so a run found by any strategy replays from its printed line.
 *
 * @param faultPoints see {@link SimConfig#faultPoints()}
 * @param priorities see {@link SimConfig#priorities()}
 * @param chain see {@link SimConfig#decisionChain()}
 * @param nemesis the nemesis the strategy chose for a test that disturbs a cluster's nodes, which such a test
 *                honours through {@link NemesisStrategy#forThisRun}; null, the default, leaves the test's own. Not a
 *                simulator setting: the simulator only runs what the test spawns
 */
public record SearchSettings(FaultPoints faultPoints, Priorities priorities, DecisionChain chain,
                             NemesisStrategy nemesis) {
    /** The simulator's defaults: fault points as FoundationDB's, no priorities, no chain; the test's own nemesis. */
    public static final SearchSettings DEFAULT = new SearchSettings(FaultPoints.DEFAULT, Priorities.OFF,
            DecisionChain.NONE);

    /** Checks that nothing but the nemesis is null. */
    public SearchSettings {
        Objects.requireNonNull(faultPoints, "faultPoints");
        Objects.requireNonNull(priorities, "priorities");
        Objects.requireNonNull(chain, "chain");
    }

    /**
     * Settings that leave the nemesis to the test.
     *
     * @param faultPoints see {@link SimConfig#faultPoints()}
     * @param priorities see {@link SimConfig#priorities()}
     * @param chain see {@link SimConfig#decisionChain()}
     */
    public SearchSettings(FaultPoints faultPoints, Priorities priorities, DecisionChain chain) {
        this(faultPoints, priorities, chain, null);
    }

    /**
     * These settings with another decision chain.
     *
     * @param newChain the chain
     * @return the settings
     */
    public SearchSettings withChain(DecisionChain newChain) {
        return new SearchSettings(faultPoints, priorities, newChain, nemesis);
    }

    /**
     * These settings with another nemesis choice.
     *
     * @param newNemesis the nemesis a cluster test is asked to run, or null to leave the test's own
     * @return the settings
     */
    public SearchSettings withNemesis(NemesisStrategy newNemesis) {
        return new SearchSettings(faultPoints, priorities, chain, newNemesis);
    }

    /**
     * Sets the simulator's part of these settings on a configuration being built (the nemesis is the test's to
     * spawn, not the simulator's).
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
     *     {@code " chain=K:S,..."} and {@code " nemesis=NAME"} ({@link NemesisStrategy#cliName()}) for each setting
     *     that differs
     */
    public String replayText() {
        return (faultPoints.equals(FaultPoints.DEFAULT) ? "" : " faultPoints=" + faultPoints)
                + (priorities.on() ? " priorities=" + priorities : "")
                + (chain.segments().isEmpty() ? "" : " chain=" + chain)
                + (nemesis == null ? "" : " nemesis=" + nemesis.cliName());
    }
}
