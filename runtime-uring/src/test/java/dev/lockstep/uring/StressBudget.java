package dev.lockstep.uring;

import java.util.concurrent.TimeUnit;

/**
 * How long each race of the {@code Uring*StressTest}s runs: {@code -Dlockstep.stress.seconds=N}, 6 by default (what
 * the build spends on each). The one reader of that property.
 */
final class StressBudget {
    /** The system property that sets the budget, in whole seconds. */
    static final String PROPERTY = "lockstep.stress.seconds";
    /** The budget when the property is not set. */
    static final long DEFAULT_SECONDS = 6;
    /**
     * The largest budget: below the shortest {@code @Timeout} of a stress test (90 s) with room for its setup and
     * teardown, so a long budget makes a race longer, never a timeout.
     */
    static final long MAX_SECONDS = 60;
    /** The budget once read; 0 until then. Read lazily so a bad value fails each test that uses it, by name. */
    private static volatile long seconds;

    private StressBudget() {
    }

    /**
     * The budget of each race, from the property.
     *
     * @throws IllegalArgumentException naming the property's value when it is not a budget (see {@link #seconds(String)})
     */
    static long seconds() {
        long read = seconds;
        if (read == 0) {
            read = seconds(System.getProperty(PROPERTY));
            seconds = read;
        }
        return read;
    }

    /** {@link #seconds()} in nanoseconds. */
    static long nanos() {
        return TimeUnit.SECONDS.toNanos(seconds());
    }

    /**
     * The budget a property value names.
     *
     * @param value the property's value, or null when unset
     * @return the seconds
     * @throws IllegalArgumentException naming the value unless it is a whole number of seconds, 1 to
     *         {@link #MAX_SECONDS}
     */
    static long seconds(String value) {
        if (value == null) {
            return DEFAULT_SECONDS;
        }
        long seconds;
        try {
            seconds = Long.parseLong(value.strip());
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(PROPERTY + " must be a whole number of seconds, was '" + value + "'");
        }
        if (seconds < 1 || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException(PROPERTY + " must be between 1 and " + MAX_SECONDS + " seconds, was "
                    + seconds);
        }
        return seconds;
    }
}
