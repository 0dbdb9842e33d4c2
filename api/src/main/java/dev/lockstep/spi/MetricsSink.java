package dev.lockstep.spi;

import java.util.List;

/**
 * Where a runtime reports its metrics: installed through a runner's configuration
 * ({@code UringRunner.Builder.metrics}, {@code SimRunner.metrics}), told when a run starts which {@link Meter}s it
 * has, and when it ended. The runtime keeps every value in plain fields as it works and never calls the sink per
 * event; a sink reads the meters when it wants (a scrape, a report), so a runner without one pays nothing.
 * {@code lockstep-micrometer}'s {@code LockstepMetrics} binds the meters to a Micrometer registry.
 *
 * <h2>Threads and errors</h2>
 * {@link #runStarted} is called on the runner's own thread before the root task runs (runtime-uring: the thread
 * that called {@code Runner.start}; the simulator: its simulation thread, and again as each simulated node's
 * lifetime starts), never on a task; {@link #runEnded} on the same thread after the run's workers retired. They must return promptly and not call back into the runner; what they throw is thrown by
 * {@code start}. A sink given to several runners sees each run's meters in turn.
 */
public interface MetricsSink {
    /** The default: a sink that keeps nothing. */
    MetricsSink NONE = new MetricsSink() {
        @Override
        public void runStarted(List<Meter> meters) {
        }

        @Override
        public String toString() {
            return "MetricsSink.NONE";
        }
    };

    /**
     * A run starts: these are its meters, readable from now on until the sink lets go of them.
     *
     * @param meters the run's meters, an unmodifiable list
     */
    void runStarted(List<Meter> meters);

    /**
     * The run ended: counters read their final values and gauges 0 from now on.
     *
     * @param meters the meters {@link #runStarted} was given
     */
    default void runEnded(List<Meter> meters) {
    }
}
