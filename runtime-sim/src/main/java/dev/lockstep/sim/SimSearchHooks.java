package dev.lockstep.sim;

import dev.lockstep.spi.SearchHooks;

/**
 * The simulator's answer to {@link dev.lockstep.Search}, registered through {@code META-INF/services} (and the
 * module descriptor's {@code provides}): a call from
 * a task of a running simulation goes to that run's fault points and assertions ({@link FaultPoints},
 * {@link Coverage}); a call from anywhere else (a plain thread, a runtime-uring fiber in the same JVM) is answered
 * as production answers it, {@code false} and nothing recorded.
 *
 * <h2>Threads</h2>
 * One instance serves every simulation of the JVM and keeps no state: it finds the caller's simulation through the
 * calling fiber's worker, and that simulation's state is touched only by its own thread, which runs its fibers one
 * at a time. Simulations on other threads are never seen.
 *
 * <p>Made by {@link java.util.ServiceLoader}, not by applications.
 */
public final class SimSearchHooks implements SearchHooks {
    /** For {@link java.util.ServiceLoader}. */
    public SimSearchHooks() {
    }

    @Override
    public boolean faultPoint(String name) {
        Simulation simulation = SimRunner.currentOrNull();
        return simulation != null && simulation.search.faultPoint(name);
    }

    @Override
    public void sometimes(boolean condition, String label) {
        Simulation simulation = SimRunner.currentOrNull();
        if (simulation != null) {
            simulation.search.sometimes(condition, label);
        }
    }

    @Override
    public void reached(String label, long value) {
        Simulation simulation = SimRunner.currentOrNull();
        if (simulation != null) {
            simulation.search.reached(label, value);
        }
    }
}
