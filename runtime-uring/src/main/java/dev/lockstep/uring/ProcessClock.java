package dev.lockstep.uring;

import java.time.Instant;

/**
 * The process's one mapping from {@link System#nanoTime()} ({@code CLOCK_MONOTONIC}) to epoch time, taken when the
 * class loads: every ring of the process reads the same clock ({@link UringRing#nowNanos()}), so readings on
 * different workers compare and never go back from one worker to another. Any thread.
 */
final class ProcessClock {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANO_TIME_AT_LOAD = System.nanoTime();
    private static final long EPOCH_NANOS_AT_LOAD = epochNanosNow();

    private ProcessClock() {
    }

    /** Wall-clock time read once when the class loaded, plus {@link System#nanoTime()} since, in epoch nanoseconds. */
    static long nowNanos() {
        return EPOCH_NANOS_AT_LOAD + (System.nanoTime() - NANO_TIME_AT_LOAD);
    }

    private static long epochNanosNow() {
        Instant now = Instant.now();
        return now.getEpochSecond() * NANOS_PER_SECOND + now.getNano();
    }
}
