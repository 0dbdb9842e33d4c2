package dev.lockstep.sim;

import java.time.Instant;

/**
 * How the root task of a {@link SimRunner#startAndRecover} run ended.
 *
 * @param <T> the task's value
 */
public sealed interface Outcome<T> permits Outcome.Completed, Outcome.Failed, Outcome.Crashed {

    /**
     * The task returned before the crash.
     *
     * @param value what it returned
     * @param <T> the task's value
     */
    record Completed<T>(T value) implements Outcome<T> {
    }

    /**
     * The task threw before the crash.
     *
     * @param failure what it threw (a checked exception is not wrapped)
     * @param <T> the task's value
     */
    record Failed<T>(Throwable failure) implements Outcome<T> {
    }

    /**
     * The machine crashed while the task was running: it never finished.
     *
     * @param reason why: {@link SimControl#crash()} or the seeded crash point
     * @param at the simulated time of the crash
     * @param <T> the task's value
     */
    record Crashed<T>(String reason, Instant at) implements Outcome<T> {
    }

    /**
     * Whether the run was cut by a crash before the task finished.
     *
     * @return true for {@link Crashed}
     */
    default boolean crashed() {
        return this instanceof Crashed;
    }

    /**
     * The task's value.
     *
     * @return the value of a {@link Completed} outcome
     * @throws IllegalStateException for any other outcome (a failure is its cause)
     */
    default T value() {
        return switch (this) {
            case Completed<T> completed -> completed.value();
            case Failed<T> failed -> throw new IllegalStateException("the task failed: " + failed.failure(),
                    failed.failure());
            case Crashed<T> crashed -> throw new IllegalStateException("the task did not finish: " + crashed.reason());
        };
    }
}
