package dev.lockstep.testing;

import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimRunner;

/**
 * What one simulated lifetime was told that its own code must act on: the nemesis its strategy chose, or why it may
 * not ask for one (a {@code @SimulationTest} method without {@link SimulationTest#clusterNemesis()}). It travels with
 * the lifetime's runner ({@link SimRunner#attach}), so a task finds its own run's choice from its context alone
 * ({@link NemesisStrategy#forThisRun}, through {@link SimControl#attachment}), whichever task of the run asks and
 * however the run was started ({@code @SimulationTest}, {@link Simulations#run}, {@link Simulations#replay}, a
 * {@link SearchStrategy#search}). Nothing is shared between runs: a run on another thread has its own instance, and
 * an instance goes with its run, however the run ended. A run started elsewhere has none.
 *
 * <h2>Threads</h2>
 * The nemesis is final, set before the run starts. The refusal is written once by the run's root task before the
 * test's code runs and read by the run's tasks, all on the run's simulator thread one at a time, every one of them
 * spawned after that write; it is volatile so that the read needs no argument about the simulator's hand-offs
 * between fibers.
 */
final class RunSettings {
    private final NemesisStrategy nemesis;
    private volatile String refusal;

    /** The settings of a lifetime run under {@code search}. */
    RunSettings(SearchSettings search) {
        this.nemesis = search.nemesis();
    }

    /** The settings attached to the run of {@code control}, or null if it was not started here. */
    static RunSettings of(SimControl control) {
        return control.attachment(RunSettings.class);
    }

    /** The nemesis the lifetime's strategy chose, or null. */
    NemesisStrategy nemesis() {
        return nemesis;
    }

    /** Why the lifetime may not ask for a nemesis, or null. */
    String refusal() {
        return refusal;
    }

    /** Tells the lifetime that asking for a nemesis is a mistake, and why. Called by the lifetime's root task. */
    void refuseNemesis(String why) {
        refusal = why;
    }
}
