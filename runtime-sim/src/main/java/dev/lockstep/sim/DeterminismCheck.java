package dev.lockstep.sim;

import dev.lockstep.Task;
import dev.lockstep.sim.audit.Auditor;
import java.util.List;
import java.util.Objects;

/**
 * Runs a task twice on one configuration and checks that both runs end with the same audit digest. When they do
 * not, both runs are made again with every event kept, and the failure says where they part: the first event that
 * differs on each side (its kind, payload, worker, fiber, simulated time and the user's source line) and the last
 * few events before it, which both runs share.
 *
 * <p>A nondeterministic task may happen to agree with itself on the traced pair; the failure then says so and
 * gives the two digests of the first pair. Any thread; each run is a fresh simulation.
 */
public final class DeterminismCheck {

    /** How many shared events before the divergence a report shows. */
    public static final int CONTEXT_EVENTS = 8;

    private DeterminismCheck() {
    }

    /** Two runs of one seed parted: the report says where. */
    public static final class DivergenceException extends AssertionError {
        private static final long serialVersionUID = 1L;

        DivergenceException(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code task} twice with {@code config} and returns the digest both runs ended with.
     *
     * @param config the configuration, seed included
     * @param task the task; a failure of it is fine as long as both runs fail the same way
     * @return the digest
     * @throws DivergenceException if the two runs' digests differ, with the first event where they part
     */
    public static String check(SimConfig config, Task<?> task) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(task, "task");
        String first = digestOf(SimRunner.of(config), task);
        String second = digestOf(SimRunner.of(config), task);
        if (first.equals(second)) {
            return first;
        }
        SimRunner one = SimRunner.of(config).traced();
        SimRunner two = SimRunner.of(config).traced();
        digestOf(one, task);
        digestOf(two, task);
        String where = locate(one.trace(), two.trace());
        throw new DivergenceException("two runs of seed " + config.seed() + " ended with different audit digests ("
                + first + " then " + second + ")" + (where == null ? "; the traced pair of runs made to locate it"
                + " agreed with each other, so the divergence does not happen on every pair of runs" : ": " + where)
                + "\n" + config.replayLine());
    }

    private static String digestOf(SimRunner runner, Task<?> task) {
        try {
            runner.start(task);
        } catch (RuntimeException | Error failure) {
            // the outcome is part of the digest's history; only the digests are compared
        }
        return runner.digest();
    }

    /**
     * Where two traces part: the first differing event on each side and the shared events before it; null if
     * the traces are the same.
     *
     * @param one the first run's events
     * @param two the second run's
     * @return the report, or null
     */
    static String locate(List<Auditor.Event> one, List<Auditor.Event> two) {
        int shared = 0;
        while (shared < one.size() && shared < two.size() && one.get(shared).sameAs(two.get(shared))) {
            shared++;
        }
        if (shared == one.size() && shared == two.size()) {
            return null;
        }
        StringBuilder report = new StringBuilder("the runs part at event #").append(shared).append('\n');
        report.append("  first run:  ").append(shared < one.size() ? one.get(shared) : "(no more events)").append('\n');
        report.append("  second run: ").append(shared < two.size() ? two.get(shared) : "(no more events)").append('\n');
        report.append("  the last events before it, the same in both runs:");
        for (int i = Math.max(0, shared - CONTEXT_EVENTS); i < shared; i++) {
            report.append("\n    ").append(one.get(i));
        }
        return report.toString();
    }
}
