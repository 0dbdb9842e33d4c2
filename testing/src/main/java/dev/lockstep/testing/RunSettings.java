package dev.lockstep.testing;

import dev.lockstep.sim.SimControl;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The search settings of each simulated lifetime running now whose strategy chose something the task itself must
 * act on (a nemesis), by the lifetime's {@link SimControl}: how a task finds its run's choice from its context alone
 * ({@link NemesisStrategy#forThisRun}), whichever task of the run asks and however the run was started
 * ({@code @SimulationTest}, {@link Simulations#run}, {@link Simulations#replay}, a {@link SearchStrategy#search}).
 *
 * <h2>Threads</h2>
 * Sweeps run lifetimes on several threads at once, so the map is shared. It is immutable and replaced whole through
 * one {@link AtomicReference}: a reader (a fiber of a run) makes one volatile read and sees a complete map; a writer
 * copies and retries its compare-and-set only when another writer won, so nobody ever waits on a lock. That matters
 * here: the reader and the binding writer are fibers, and a fiber that blocked on a monitor held by another
 * simulation's thread would be woken by that thread, a hand-off from outside its simulation. A lifetime's entry is
 * added by its root task before the test's code runs (so every task of the lifetime, all spawned after it, sees it)
 * and removed by the thread that started the lifetime once {@code start} returned, so the map holds only the
 * lifetimes running now. {@link SimControl} keeps {@link Object}'s identity equality: one entry per lifetime.
 */
final class RunSettings {
    private static final AtomicReference<Map<SimControl, SearchSettings>> RUNNING = new AtomicReference<>(Map.of());

    private RunSettings() {
    }

    /**
     * The settings of the lifetime whose control this is, or null if it was not bound (its strategy chose nothing a
     * task acts on, or it was not started by this module).
     */
    static SearchSettings of(SimControl control) {
        return RUNNING.get().get(control);
    }

    /** How many lifetimes are bound now: for tests, which check that every run removed its entry. */
    static int bound() {
        return RUNNING.get().size();
    }

    /**
     * One lifetime's entry: {@link #begin} on its root task, {@link #end} on the thread that started it, after
     * {@code start} returned (or threw).
     */
    static final class Binding {
        private final SearchSettings settings;
        /**
         * Written by the root fiber in {@link #begin}, read by the starting thread in {@link #end}; volatile, so
         * {@link #end} sees the control however the simulator hands the fiber's end back to that thread.
         */
        private volatile SimControl bound;

        Binding(SearchSettings settings) {
            this.settings = settings;
        }

        /** Binds the lifetime of {@code control}, if its settings hold anything a task acts on. */
        void begin(SimControl control) {
            if (settings.nemesis() == null) {
                return; // nothing to find: forThisRun answers with the test's fallback
            }
            bound = control;
            update(control, settings);
        }

        /** Removes the lifetime's entry, if {@link #begin} made one. */
        void end() {
            SimControl control = bound;
            if (control != null) {
                bound = null;
                update(control, null);
            }
        }
    }

    private static void update(SimControl control, SearchSettings settings) {
        while (true) {
            Map<SimControl, SearchSettings> before = RUNNING.get();
            Map<SimControl, SearchSettings> after = new HashMap<>(before);
            if (settings == null) {
                after.remove(control);
            } else {
                after.put(control, settings);
            }
            if (RUNNING.compareAndSet(before, Map.copyOf(after))) {
                return;
            }
        }
    }
}
