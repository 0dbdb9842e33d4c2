package dev.lockstep.demo;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time a sweeping thread has spent on its seeds: its own ({@link ThreadMXBean}) plus that of the simulator
 * threads that ran its seeds. A simulation runs on a carrier thread of its caller's, which the caller only waits
 * for, so the caller's own CPU time misses nearly all of it; each run's is {@code SimRunner.simulatorCpuNanos()},
 * which the scenarios add up here ({@link #addSimulator}) on the thread that ran them.
 */
final class SweepCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Per sweeping thread: the simulators' CPU time of the runs it made. */
    private static final ThreadLocal<long[]> SIMULATORS = ThreadLocal.withInitial(() -> new long[1]);

    private SweepCpu() {
    }

    /**
     * Adds a finished run's simulator CPU time to the calling thread's.
     *
     * @param nanos {@code SimRunner.simulatorCpuNanos()}; ignored when negative (not measurable)
     */
    static void addSimulator(long nanos) {
        if (nanos > 0) {
            SIMULATORS.get()[0] += nanos;
        }
    }

    /**
     * The calling thread's CPU time so far, with its simulators'.
     *
     * @return nanoseconds
     */
    static long now() {
        return THREADS.getCurrentThreadCpuTime() + SIMULATORS.get()[0];
    }
}
