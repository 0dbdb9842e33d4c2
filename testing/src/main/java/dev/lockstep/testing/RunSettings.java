package dev.lockstep.testing;

import dev.lockstep.sim.SimControl;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What each simulated lifetime running now was told that its own code must act on, by the lifetime's
 * {@link SimControl}: the nemesis its strategy chose, or why it may not ask for one (a {@code @SimulationTest}
 * method without {@link SimulationTest#clusterNemesis()}). How a task finds its run's choice from its context alone
 * ({@link NemesisStrategy#forThisRun}), whichever task of the run asks and however the run was started
 * ({@code @SimulationTest}, {@link Simulations#run}, {@link Simulations#replay}, a {@link SearchStrategy#search}).
 * A lifetime told nothing has no entry.
 *
 * <h2>Threads</h2>
 * Sweeps run lifetimes on several threads at once, so the map is shared. It is immutable and replaced whole through
 * one {@link AtomicReference}: a reader (a fiber of a run) makes one volatile read and sees a complete map; a writer
 * copies and retries its compare-and-set only when another writer won, so nobody ever waits on a lock. That matters
 * here: the reader and the binding writer are fibers, and a fiber that blocked on a monitor held by another
 * simulation's thread would be woken by that thread, a hand-off from outside its simulation. A lifetime's entry is
 * added by its root task before the test's code runs (so every task of the lifetime, all spawned after it, sees it)
 * and removed by the thread that started the lifetime once {@code start} returned (that thread ran the root task,
 * which set {@link Binding}'s control, earlier), so the map holds only the lifetimes running now. The map compares
 * its keys by identity ({@link IdentityHashMap}), whatever {@link SimControl}'s own equality: one entry per lifetime.
 */
final class RunSettings {
    private static final AtomicReference<Map<SimControl, Told>> RUNNING =
            new AtomicReference<>(Collections.unmodifiableMap(new IdentityHashMap<>()));

    private RunSettings() {
    }

    /**
     * What a lifetime was told.
     *
     * @param nemesis the nemesis its strategy chose, or null
     * @param refusal why the lifetime may not ask for a nemesis, or null
     */
    record Told(NemesisStrategy nemesis, String refusal) {
    }

    /** What the lifetime whose control this is was told, or null if nothing (or it was not started here). */
    static Told of(SimControl control) {
        return RUNNING.get().get(control);
    }

    /**
     * Tells the running lifetime of {@code control} that asking for a nemesis is a mistake, and why; its
     * {@link Binding} removes that when the lifetime ends. Called by the lifetime's root task.
     */
    static void refuseNemesis(SimControl control, String refusal) {
        update(control, new Told(null, refusal));
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
        private volatile SimControl control;

        Binding(SearchSettings settings) {
            this.settings = settings;
        }

        /** Binds the lifetime of {@code lifetime}, if its settings hold anything a task acts on. */
        void begin(SimControl lifetime) {
            control = lifetime;
            if (settings.nemesis() != null) {
                update(lifetime, new Told(settings.nemesis(), null));
            } // else nothing to find: forThisRun answers with the test's fallback
        }

        /** Removes the lifetime's entry, if it has one. */
        void end() {
            SimControl lifetime = control;
            if (lifetime != null && RUNNING.get().containsKey(lifetime)) {
                update(lifetime, null);
            }
        }
    }

    private static void update(SimControl control, Told told) {
        while (true) {
            Map<SimControl, Told> before = RUNNING.get();
            Map<SimControl, Told> after = new IdentityHashMap<>(before);
            if (told == null) {
                after.remove(control);
            } else {
                after.put(control, told);
            }
            if (RUNNING.compareAndSet(before, Collections.unmodifiableMap(after))) {
                return;
            }
        }
    }
}
