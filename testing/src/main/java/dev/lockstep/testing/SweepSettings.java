package dev.lockstep.testing;

import java.lang.reflect.Method;
import java.nio.file.Path;
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
 *   <li>{@value #STRATEGY}: a {@link SearchStrategy} name, {@code combined} by default;</li>
 *   <li>{@value #STOP_AT_FIRST_FAILURE}: {@code true} to skip every seed after the first that failed (reported as
 *       aborted), {@code false} by default;</li>
 *   <li>{@value #SHARD}: {@code K/N} runs only shard {@code K} (from 0) of {@code N}: the seeds whose position in
 *       the sweep is {@code K} modulo {@code N}, so that N processes (or machines) run the sweep between them; for
 *       the guided strategy, whose runs depend on each other, shard {@code K} is an explorer of its own making its
 *       share of the runs, its fresh seeds from {@code firstSeed + K * ceil(seeds / N)}, so shards never repeat a
 *       fresh seed;</li>
 *   <li>{@value #REPORT}: a directory; after the sweep, the file {@code CLASS#METHOD.txt} there
 *       ({@code CLASS#METHOD-shard-K-of-N.txt} for a shard) says what ran and gives each failure's replay text
 *       ({@link SweepSummary});</li>
 *   <li>{@value #REPLAY}: the replay text a failure printed ({@link SimulationTestFailure#replay()}): the method
 *       runs exactly that run, once, on JUnit's thread, and the other settings are not used.</li>
 * </ul>
 * They apply to every {@code @SimulationTest} method of the run, so name the method to sweep with Surefire's
 * {@code -Dtest}. A method pinned with {@link Seed} runs its seed alone, under the strategy.
 *
 * @param seeds how many seeds or runs in the whole sweep (over every shard)
 * @param firstSeed the first seed
 * @param strategy how runs are chosen
 * @param stopAtFirstFailure whether seeds after a failure are skipped
 * @param shard the part of the sweep this run makes
 * @param report the directory of the sweep's report, or null for none
 * @param replay the replay text to run instead of the sweep, or null
 */
record SweepSettings(int seeds, long firstSeed, SearchStrategy strategy, boolean stopAtFirstFailure, Shard shard,
                     Path report, String replay) {
    static final String SEEDS = "lockstep.seeds";
    static final String FIRST_SEED = "lockstep.firstSeed";
    static final String STRATEGY = "lockstep.strategy";
    static final String STOP_AT_FIRST_FAILURE = "lockstep.stopAtFirstFailure";
    static final String SHARD = "lockstep.shard";
    static final String REPORT = "lockstep.report";
    static final String REPLAY = "lockstep.replay";

    /**
     * Shard {@code index} of {@code count}.
     *
     * @param index from 0, below {@code count}
     * @param count at least 1
     */
    record Shard(int index, int count) {
        static final Shard ALL = new Shard(0, 1);

        /**
         * Parses {@code K/N}.
         *
         * @throws IllegalArgumentException naming the text when it is not two decimal numbers with
         *     {@code 0 <= K < N}
         */
        static Shard parse(String text) {
            int slash = text.indexOf('/');
            if (slash < 0 || !text.matches("[0-9]{1,9}/[0-9]{1,9}")) {
                throw new IllegalArgumentException(SHARD + "=" + text + ": must be K/N, two decimal numbers, shard K"
                        + " (from 0) of N");
            }
            int index = Integer.parseInt(text.substring(0, slash));
            int count = Integer.parseInt(text.substring(slash + 1));
            if (count < 1 || index >= count) {
                throw new IllegalArgumentException(SHARD + "=" + text + ": K must be below N and N at least 1");
            }
            return new Shard(index, count);
        }

        @Override
        public String toString() {
            return index + "/" + count;
        }
    }

    /**
     * How many runs this shard makes: the sweep's positions {@code p < seeds} with {@code p % N == K}, or for a
     * sequential strategy its share of the runs.
     */
    int runs() {
        return seeds <= shard.index ? 0 : (seeds - shard.index + shard.count - 1) / shard.count;
    }

    /** The seed of this shard's run at {@code index}, for a strategy whose runs are independent. */
    long seedAt(int index) {
        return firstSeed + shard.index + (long) index * shard.count;
    }

    /** Where a sequential strategy's session of this shard starts: shards' fresh seeds never overlap. */
    long sessionFirstSeed() {
        long share = (seeds + (long) shard.count - 1) / shard.count;
        try {
            return Math.addExact(firstSeed, shard.index * share);
        } catch (ArithmeticException past) {
            throw new IllegalArgumentException(SHARD + "=" + shard + " with first seed " + firstSeed + " and " + seeds
                    + " seeds: the shard's first seed would be past " + Long.MAX_VALUE);
        }
    }

    /**
     * The settings of a method: the annotation's, overridden by what the run sets.
     *
     * @throws IllegalArgumentException naming a value that is not a decimal number in range, an unknown strategy,
     *     a stop flag other than {@code true} or {@code false}, a shard that is not {@code K/N} or that would have
     *     no seeds, an empty report directory, or a range of seeds past {@code Long.MAX_VALUE}
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
        SearchStrategy strategy = SearchStrategy.named(parameter(context, STRATEGY)
                .orElse(SearchStrategy.NAMES.getFirst()));
        boolean stop = parameter(context, STOP_AT_FIRST_FAILURE).map(value -> switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(STOP_AT_FIRST_FAILURE + "=" + value
                    + ": must be true or false");
        }).orElse(false);
        Shard shard = parameter(context, SHARD).map(Shard::parse).orElse(Shard.ALL);
        if (shard.index() >= seeds) {
            throw new IllegalArgumentException(SHARD + "=" + shard + " of " + seeds + " seeds on " + method
                    + ": that shard has no seeds");
        }
        Path report = parameter(context, REPORT).map(value -> {
            if (value.isEmpty()) {
                throw new IllegalArgumentException(REPORT + " is empty: name a directory, . for this one");
            }
            return Path.of(value);
        }).orElse(null);
        String replay = parameter(context, REPLAY).orElse(null);
        if (replay != null) {
            Simulations.parseReplay(replay); // fails at once naming what is wrong, before JUnit's invocations
        }
        return new SweepSettings(seeds, firstSeed, strategy, stop, shard, report, replay);
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
