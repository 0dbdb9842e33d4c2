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
    /** The budget of each race. */
    static final long SECONDS = seconds(System.getProperty(PROPERTY));
    /** {@link #SECONDS} in nanoseconds. */
    static final long NANOS = TimeUnit.SECONDS.toNanos(SECONDS);

    private StressBudget() {
    }

    /**
     * The budget a property value names.
     *
     * @param value the property's value, or null when unset
     * @return the seconds
     * @throws IllegalArgumentException naming the value unless it is a whole number of seconds, at least 1
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
        if (seconds < 1 || seconds > TimeUnit.DAYS.toSeconds(1)) {
            throw new IllegalArgumentException(PROPERTY + " must be between 1 and 86400 seconds, was " + seconds);
        }
        return seconds;
    }
}
