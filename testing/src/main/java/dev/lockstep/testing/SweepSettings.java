package dev.lockstep.testing;

import java.lang.reflect.Method;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a {@link SimulationTest} method's sweep runs: its annotation's seeds, unless the run overrides them with
 * JUnit configuration parameters or system properties of the same names ({@code mvn test
 * -Dtest=MyTest#method -Dlockstep.seeds=100000 -Dlockstep.strategy=guided -Dlockstep.stopAtFirstFailure=true}):
 *
 * <ul>
 *   <li>{@value #SEEDS}: how many seeds (runs, for the guided strategy), at least 1;</li>
 *   <li>{@value #FIRST_SEED}: the first seed (the guided explorer's own seed);</li>
 *   <li>{@value #STRATEGY}: a {@link SearchStrategy} name, {@code random} by default;</li>
 *   <li>{@value #STOP_AT_FIRST_FAILURE}: {@code true} to skip every seed after the first that failed (reported as
 *       aborted), {@code false} by default.</li>
 * </ul>
 * They apply to every {@code @SimulationTest} method of the run, so name the method to sweep with Surefire's
 * {@code -Dtest}. A method pinned with {@link Seed} runs its seed alone, under the strategy.
 *
 * @param seeds how many seeds or runs
 * @param firstSeed the first seed
 * @param strategy how runs are chosen
 * @param stopAtFirstFailure whether seeds after a failure are skipped
 */
record SweepSettings(int seeds, long firstSeed, SearchStrategy strategy, boolean stopAtFirstFailure) {
    static final String SEEDS = "lockstep.seeds";
    static final String FIRST_SEED = "lockstep.firstSeed";
    static final String STRATEGY = "lockstep.strategy";
    static final String STOP_AT_FIRST_FAILURE = "lockstep.stopAtFirstFailure";

    /**
     * The settings of a method: the annotation's, overridden by what the run sets.
     *
     * @throws IllegalArgumentException naming a value that is not a decimal number in range, an unknown strategy,
     *     a stop flag other than {@code true} or {@code false}, or a range of seeds past {@code Long.MAX_VALUE}
     */
    static SweepSettings of(SimulationTest test, Method method, ExtensionContext context) {
        int seeds = test.seeds();
        Optional<String> seedsSet = parameter(context, SEEDS);
        if (seedsSet.isPresent()) {
            long value = decimal(SEEDS, seedsSet.get());
            if (value < 1 || value > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(SEEDS + "=" + seedsSet.get() + ": must be 1 to "
                        + Integer.MAX_VALUE);
            }
            seeds = (int) value;
        }
        long firstSeed = parameter(context, FIRST_SEED).map(value -> decimal(FIRST_SEED, value))
                .orElse(test.firstSeed());
        if (firstSeed > Long.MAX_VALUE - (seeds - 1)) {
            throw new IllegalArgumentException("first seed " + firstSeed + " and " + seeds + " seeds on " + method
                    + ": the last seed would be past " + Long.MAX_VALUE);
        }
        SearchStrategy strategy = SearchStrategy.named(parameter(context, STRATEGY).orElse("random"));
        boolean stop = parameter(context, STOP_AT_FIRST_FAILURE).map(value -> switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(STOP_AT_FIRST_FAILURE + "=" + value
                    + ": must be true or false");
        }).orElse(false);
        return new SweepSettings(seeds, firstSeed, strategy, stop);
    }

    private static Optional<String> parameter(ExtensionContext context, String key) {
        // JUnit's configuration parameters fall back to system properties of the same name.
        return context.getConfigurationParameter(key).map(String::trim);
    }

    private static long decimal(String key, String value) {
        // Decimal ASCII digits only: Long.parseLong also takes a '+' and the digits of every script.
        if (!value.matches("-?[0-9]{1,19}")) {
            throw new IllegalArgumentException(key + "=" + value + ": not a number in decimal digits");
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException outOfRange) {
            throw new IllegalArgumentException(key + "=" + value + ": out of range");
        }
    }
}
