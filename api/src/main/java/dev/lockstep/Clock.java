package dev.lockstep;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * Time as the runtime sees it, on two clocks: the wall clock ({@link #now()}), which an administrator or NTP may
 * step, and the monotonic clock ({@link #monotonicNanos()}), which nothing steps. In production both come from
 * the machine; in the simulator from simulated time, where a cluster node's clock may drift and be stepped
 * ({@code SimNode.driftClock}, {@code SimNode.stepClock}) as a real machine's is.
 *
 * <p>Sleeps, sleepers and timeouts run on the monotonic clock: a duration is measured on it, so a step of the
 * wall clock neither shortens nor lengthens one, and a clock that runs fast makes them end early, as NTP's
 * slewing does to {@code CLOCK_MONOTONIC}. {@link #sleepUntil} takes a wall-clock instant and waits for the
 * monotonic time between it and {@link #now()} at the call: a step after the call does not move it. Measure
 * leases, election timeouts and other spans of time on {@link #monotonicNanos()}; use {@link #now()} for what
 * is shown to people or compared across machines. Sleeps and deadlines live in the worker's timer wheel, never
 * in ring slots, so they fire even when the ring is full.
 */
public interface Clock {

    /**
     * The wall-clock time of the calling worker: what a step of the machine's clock moves. Never goes backwards
     * on one worker: after a step back it stands still until it catches up.
     *
     * @return the time
     */
    Instant now();

    /**
     * A reading of the runtime's monotonic clock in nanoseconds, from an origin of the runtime's choosing: for
     * measuring elapsed time (subtract two readings). Never goes backwards, on any worker of the runtime, and
     * unaffected by steps of the wall clock; a clock that runs fast or slow (a node's {@code SimNode.driftClock})
     * runs fast or slow here too, as NTP's slewing makes {@code CLOCK_MONOTONIC}. Readings compare within one
     * runtime (in the simulator, one node) while it runs; not across processes, nodes or restarts.
     *
     * @return nanoseconds
     * @throws IllegalStateException when not called from a task of this runtime
     */
    long monotonicNanos();

    /**
     * Parks the calling fiber for at least {@code duration} of monotonic time.
     *
     * @param duration zero or positive
     * @throws IllegalArgumentException if negative
     * @throws ClosedException if the task is aborted or the worker closes while sleeping
     */
    void sleep(Duration duration);

    /**
     * Parks the calling fiber until {@code deadline} on the wall clock, as it reads at the call: for as long as
     * the monotonic clock takes to cover the time from {@link #now()} to {@code deadline}. Returns at once if it
     * has passed. A deadline far in the future (up to {@link Instant#MAX}) does not overflow.
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
     * of monotonic time has passed, the operation it waits on is closed and {@link TimeoutException} is thrown out of it.
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
