package dev.lockstep;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * Time as the runtime sees it: wall-clock time in production, simulated time in the simulator. Sleeps and
 * deadlines live in the worker's timer wheel, never in ring slots, so they fire even when the ring is full.
 */
public interface Clock {

    /**
     * The current time of the calling worker. Never goes backwards on one worker.
     *
     * @return the time
     */
    Instant now();

    /**
     * Parks the calling fiber for at least {@code duration}.
     *
     * @param duration zero or positive
     * @throws IllegalArgumentException if negative
     * @throws ClosedException if the task is aborted or the worker closes while sleeping
     */
    void sleep(Duration duration);

    /**
     * Parks the calling fiber until {@code deadline}; returns at once if it has passed. A deadline far in the
     * future (up to {@link Instant#MAX}) does not overflow.
     *
     * @param deadline the time to wake at
     * @throws ClosedException if the task is aborted or the worker closes while sleeping
     */
    void sleepUntil(Instant deadline);

    /**
     * A sleep as an operation, for code that polls or races several operations.
     *
     * @param duration zero or positive
     * @return an operation that completes with {@code null} once {@code duration} has passed
     * @throws IllegalArgumentException if negative
     */
    Operation<Void> sleeper(Duration duration);

    /**
     * Runs {@code body} on the calling fiber with a deadline: if it is still waiting when {@code duration}
     * has passed, the operation it waits on is closed and {@link TimeoutException} is thrown out of it.
     * Nested timeouts each apply; the earliest fires first. A zero duration has passed already: a body that never
     * waits returns, and the first wait of one that does fails.
     *
     * @param duration zero or positive
     * @param body the work
     * @param <T> its value
     * @return what {@code body} returned
     * @throws TimeoutException if the deadline passed while {@code body} waited
     * @throws ExitedException wrapping a checked exception thrown by {@code body}; unchecked ones pass as is
     */
    <T> T timeout(Duration duration, Callable<T> body);
}
