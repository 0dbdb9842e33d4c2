package dev.lockstep.testing;

import java.util.function.Supplier;

/**
 * Why the runtime-uring run of a {@code @SimulationTest} method without {@link SimulationTest#clusterNemesis()} may
 * not ask {@link NemesisStrategy#forThisRun} for a nemesis: the same refusal its simulated runs get from
 * their {@link RunSettings}, for the run that keeps no digest and no {@link dev.lockstep.sim.SimControl}.
 *
 * <h2>Threads</h2>
 * An inheritable thread-local, set on the thread that starts the runner for as long as {@code start} runs. Every
 * thread of that runner is made during {@code start}, by that thread or by a thread made from it (its workers, the
 * virtual threads of its fibers, its offload threads), and the JDK copies the value into each thread when it is
 * constructed: a task of the run reads it on its own thread with no hand-off. No other runner's threads have it,
 * and it is removed when {@code start} returns.
 */
final class UringRefusal {
    private static final InheritableThreadLocal<String> REFUSAL = new InheritableThreadLocal<>();

    private UringRefusal() {
    }

    /** Runs {@code start}, which starts a runtime-uring runner, with {@code refusal} (null: none) for its tasks. */
    static <T> T during(String refusal, Supplier<T> start) {
        if (refusal == null) {
            return start.get();
        }
        REFUSAL.set(refusal);
        try {
            return start.get();
        } finally {
            REFUSAL.remove();
        }
    }

    /** The refusal of the runtime-uring run the calling thread belongs to, or null. */
    static String current() {
        return REFUSAL.get();
    }
}
