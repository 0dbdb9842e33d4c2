package dev.lockstep.property;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * Runs a property: the engine behind {@link Property}, and a builder for properties written inside an ordinary
 * test (or checked by one, as the harness's own tests do).
 *
 * <pre>{@code
 * PropertyCheck.named("reverse twice").tries(200)
 *         .forAll(Gen.ints(-9, 9).list(0, 20), values -> assertEquals(values, reverse(reverse(values))));
 * }</pre>
 *
 * <p>Try {@code i} draws its arguments, in parameter order, from {@link Choices#random} seeded with the
 * {@code i}th value of a {@link SplittableRandom} seeded with the run's seed. A try fails when the body throws
 * anything but a failed assumption ({@code Assumptions.assume...}), which discards the try, as a
 * {@link Gen.Rejected} from a generator does; a generator that throws anything else fails the try as the body
 * would. The failing try is then shrunk
 * (see {@link Shrinker}) and reported as a {@link PropertyFailure}.
 *
 * <p>Not thread-safe; the body runs on the calling thread.
 */
public final class PropertyCheck {
    /** The system property that sets every run's seed, overriding {@link #seed(long)}. */
    public static final String SEED_PROPERTY = "lockstep.property.seed";

    /** A property's body over its arguments in parameter order. */
    @FunctionalInterface
    public interface Body {
        /**
         * Checks one case.
         *
         * @param arguments the drawn arguments
         * @throws Throwable anything: a failure of the case
         */
        void check(List<Object> arguments) throws Throwable;
    }

    /** A body of one argument. */
    @FunctionalInterface
    public interface Body1<A> {
        /** @param a the argument @throws Throwable a failure of the case */
        void check(A a) throws Throwable;
    }

    /** A body of two arguments. */
    @FunctionalInterface
    public interface Body2<A, B> {
        /** @param a the first @param b the second @throws Throwable a failure of the case */
        void check(A a, B b) throws Throwable;
    }

    /** A body of three arguments. */
    @FunctionalInterface
    public interface Body3<A, B, C> {
        /** @param a the first @param b the second @param c the third @throws Throwable a failure of the case */
        void check(A a, B b, C c) throws Throwable;
    }

    /** A body of four arguments. */
    @FunctionalInterface
    public interface Body4<A, B, C, D> {
        /**
         * @param a the first @param b the second @param c the third @param d the fourth
         * @throws Throwable a failure of the case
         */
        void check(A a, B b, C c, D d) throws Throwable;
    }

    /**
     * What a passing run did.
     *
     * @param name the property
     * @param seed the run's seed
     * @param tries tries that ran the body
     * @param discarded tries a filter discarded
     */
    public record Report(String name, long seed, int tries, int discarded) {
        @Override
        public String toString() {
            return "property " + name + ": " + tries + " tries passed" + (discarded > 0 ? " (" + discarded
                    + " discarded)" : "") + ", seed " + seed + " (rerun: -D" + SEED_PROPERTY + "=" + seed + ")";
        }
    }

    private final String name;
    private long seed = Property.NO_SEED;
    private int tries = 100;
    private int shrinkLimit = 1000;
    private long[] replay;
    private List<String> parameterNames;

    private PropertyCheck(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * A property called {@code name} in reports.
     *
     * @param name e.g. the test method's name
     * @return the builder
     */
    public static PropertyCheck named(String name) {
        return new PropertyCheck(name);
    }

    /**
     * The run's seed (the system property {@value #SEED_PROPERTY} overrides it); without it, a fresh one.
     *
     * @param value the seed
     * @return this
     */
    public PropertyCheck seed(long value) {
        this.seed = value;
        return this;
    }

    /**
     * How many tries.
     *
     * @param count at least 1
     * @return this
     */
    public PropertyCheck tries(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("tries must be at least 1, was " + count);
        }
        this.tries = count;
        return this;
    }

    /**
     * At most this many runs of the body while shrinking.
     *
     * @param runs at least 0 (0: report the original case)
     * @return this
     */
    public PropertyCheck shrinkLimit(int runs) {
        if (runs < 0) {
            throw new IllegalArgumentException("shrinkLimit must not be negative, was " + runs);
        }
        this.shrinkLimit = runs;
        return this;
    }

    /**
     * Runs the one case a failure's replay line gives, instead of tries. If a filter or an assumption discards
     * that case, the check is aborted ({@code TestAbortedException}: JUnit reports it skipped), not passed.
     *
     * @param choices the choice sequence, e.g. {@code "1 0 3 0"}; empty for none
     * @return this
     * @throws IllegalArgumentException naming a value that is not a non-negative long
     */
    public PropertyCheck replay(String choices) {
        this.replay = choices.isBlank() ? null : parseChoices(choices);
        return this;
    }

    /**
     * Names the arguments in reports ({@code steps = [...]}); without it they are listed by position.
     *
     * @param names one per generator
     * @return this
     */
    public PropertyCheck parameterNames(List<String> names) {
        this.parameterNames = List.copyOf(names);
        return this;
    }

    /** @return the report @throws PropertyFailure if a try failed */
    public <A> Report forAll(Gen<A> a, Body1<? super A> body) {
        return check(List.of(a), args -> body.check(cast(args.get(0))));
    }

    /** @return the report @throws PropertyFailure if a try failed */
    public <A, B> Report forAll(Gen<A> a, Gen<B> b, Body2<? super A, ? super B> body) {
        return check(List.of(a, b), args -> body.check(cast(args.get(0)), cast(args.get(1))));
    }

    /** @return the report @throws PropertyFailure if a try failed */
    public <A, B, C> Report forAll(Gen<A> a, Gen<B> b, Gen<C> c, Body3<? super A, ? super B, ? super C> body) {
        return check(List.of(a, b, c), args -> body.check(cast(args.get(0)), cast(args.get(1)), cast(args.get(2))));
    }

    /** @return the report @throws PropertyFailure if a try failed */
    public <A, B, C, D> Report forAll(Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d,
                                      Body4<? super A, ? super B, ? super C, ? super D> body) {
        return check(List.of(a, b, c, d), args -> body.check(cast(args.get(0)), cast(args.get(1)),
                cast(args.get(2)), cast(args.get(3))));
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object value) {
        return (T) value;
    }

    /**
     * Runs the property over any number of generators.
     *
     * @param generators one per argument, drawn in this order
     * @param body the check
     * @return what ran
     * @throws PropertyFailure if a try failed, after shrinking it
     */
    public Report check(List<? extends Gen<?>> generators, Body body) {
        List<Gen<?>> gens = List.copyOf(generators);
        long runSeed = resolveSeed();
        if (replay != null) {
            Outcome outcome = runOnce(gens, body, Choices.replay(replay));
            if (outcome.failure() != null) {
                throw new PropertyFailure("property " + name + " failed on the replayed case\n  case:     "
                        + describe(outcome.arguments()) + "\n  failure:  " + outcome.failure() + "\n  replay:   "
                        + replayLine(formatChoices(outcome.values()), runSeed), outcome.failure(), runSeed,
                        outcome.arguments(), outcome.arguments(), formatChoices(outcome.values()), 0);
            }
            if (outcome.discarded()) {
                // Not a pass: the body did not run on the case (a filter or an assumption discarded it).
                throw new org.opentest4j.TestAbortedException("property " + name + ": the replayed case was "
                        + "discarded by a filter or an assumption, so nothing was checked\n  case:     "
                        + describe(outcome.arguments()) + "\n  replay:   " + formatChoices(outcome.values()));
            }
            return new Report(name, runSeed, 1, 0);
        }
        SplittableRandom trySeeds = new SplittableRandom(runSeed);
        int ran = 0;
        int discarded = 0;
        while (ran < tries) {
            long trySeed = trySeeds.nextLong();
            Outcome outcome = runOnce(gens, body, Choices.random(trySeed));
            if (outcome.discarded()) {
                if (++discarded > 5L * tries) {
                    throw new AssertionError("property " + name + ": generators discarded " + discarded
                            + " tries (filters or assumptions reject too much) with seed " + runSeed);
                }
                continue;
            }
            ran++;
            if (outcome.failure() != null) {
                throw shrinkAndReport(gens, body, outcome, ran, runSeed);
            }
        }
        return new Report(name, runSeed, ran, discarded);
    }

    private PropertyFailure shrinkAndReport(List<Gen<?>> gens, Body body, Outcome original, int tryNumber,
                                            long runSeed) {
        Class<?> kind = original.failure().getClass();
        Shrinker shrinker = new Shrinker(candidate -> {
            Outcome outcome = runOnce(gens, body, Choices.replay(candidate));
            if (outcome.failure() == null || outcome.failure().getClass() != kind) {
                return null;
            }
            return outcome.attempt();
        }, shrinkLimit);
        Shrinker.Attempt shrunk = shrinker.shrink(original.attempt());
        String choices = formatChoices(shrunk.values());
        String message = "property " + name + " failed on try " + tryNumber + " of " + tries + " (seed " + runSeed
                + "); shrunk in " + shrinker.steps() + " steps (" + shrinker.runs() + " runs)"
                + "\n  shrunk:   " + describe(shrunk.arguments())
                + "\n  original: " + describe(original.arguments())
                + "\n  failure:  " + shrunk.failure()
                + "\n  replay:   " + replayLine(choices, runSeed);
        return new PropertyFailure(message, shrunk.failure(), runSeed, original.arguments(), shrunk.arguments(),
                choices, shrinker.steps());
    }

    private static String replayLine(String choices, long runSeed) {
        return "@Property(replay = \"" + choices + "\") runs the shrunk case alone; @Property(seed = " + runSeed
                + "L) or -D" + SEED_PROPERTY + "=" + runSeed + " reruns these tries";
    }

    private long resolveSeed() {
        String property = System.getProperty(SEED_PROPERTY);
        if (property != null && !property.isBlank()) {
            try {
                String digits = property.trim().replaceFirst("[lL]$", "");
                if (!digits.matches("-?[0-9]+")) {
                    throw new NumberFormatException(digits); // a '+' or another script's digits, as above
                }
                return Long.parseLong(digits);
            } catch (NumberFormatException bad) {
                throw new IllegalArgumentException("-D" + SEED_PROPERTY + " must be a long, was '" + property + "'");
            }
        }
        return seed != Property.NO_SEED ? seed : new SplittableRandom().nextLong();
    }

    /** One run of the body: its record, arguments and failure (null if it passed). */
    private record Outcome(long[] values, boolean[] fixed, List<int[]> spans, List<Object> arguments,
                           Throwable failure, boolean discarded) {
        Shrinker.Attempt attempt() {
            return new Shrinker.Attempt(values, fixed, spans, arguments, failure);
        }
    }

    private static Outcome runOnce(List<Gen<?>> gens, Body body, Choices choices) {
        List<Object> arguments = new ArrayList<>(gens.size());
        try {
            for (Gen<?> gen : gens) {
                arguments.add(gen.generate(choices));
            }
        } catch (Gen.Rejected | Choices.Overrun | org.opentest4j.TestAbortedException discard) {
            return new Outcome(choices.values(), choices.fixed(), choices.spans(), arguments, null, true);
        } catch (Throwable thrown) {
            if (thrown instanceof VirtualMachineError fatal && !(thrown instanceof StackOverflowError)) {
                throw fatal;
            }
            // A generator that throws fails the case as the body would (reported with the seed, and shrunk); the
            // case lists the arguments drawn before it.
            return new Outcome(choices.values(), choices.fixed(), choices.spans(),
                    java.util.Collections.unmodifiableList(new ArrayList<>(arguments)), thrown, false);
        }
        List<Object> shown = java.util.Collections.unmodifiableList(new ArrayList<>(arguments));
        Throwable failure = null;
        try {
            body.check(shown);
        } catch (org.opentest4j.TestAbortedException assumption) {
            // An assumption that does not hold (Assumptions.assumeTrue): the case is not one the property is about.
            return new Outcome(choices.values(), choices.fixed(), choices.spans(), shown, null, true);
        } catch (Throwable thrown) {
            if (thrown instanceof VirtualMachineError fatal && !(thrown instanceof StackOverflowError)) {
                throw fatal;
            }
            failure = thrown;
        }
        return new Outcome(choices.values(), choices.fixed(), choices.spans(), shown, failure, false);
    }

    private String describe(List<Object> arguments) {
        StringJoiner joiner = new StringJoiner(", ");
        for (int i = 0; i < arguments.size(); i++) {
            String label = parameterNames != null && i < parameterNames.size() ? parameterNames.get(i)
                    : "#" + (i + 1);
            joiner.add(label + " = " + show(arguments.get(i)));
        }
        return joiner.toString();
    }

    private static String show(Object value) {
        if (value instanceof Object[] array) {
            return Arrays.deepToString(array);
        }
        if (value instanceof byte[] bytes) {
            return Arrays.toString(bytes);
        }
        if (value instanceof int[] ints) {
            return Arrays.toString(ints);
        }
        if (value instanceof long[] longs) {
            return Arrays.toString(longs);
        }
        return String.valueOf(value);
    }

    static String formatChoices(long[] values) {
        StringJoiner joiner = new StringJoiner(" ");
        for (long value : values) {
            joiner.add(Long.toString(value));
        }
        return joiner.toString();
    }

    static long[] parseChoices(String text) {
        String[] parts = text.trim().split("\\s+");
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                // ASCII digits only: Long.parseLong also reads a '+' and the digits of every script, so a
                // replay that shows one case could run another.
                values[i] = parts[i].matches("[0-9]+") ? Long.parseLong(parts[i]) : -1;
            } catch (NumberFormatException bad) {
                values[i] = -1;
            }
            if (values[i] < 0) {
                throw new IllegalArgumentException("a replay is choices (non-negative longs) separated by spaces; '"
                        + parts[i] + "' in \"" + text + "\" is not one");
            }
        }
        return values;
    }
}
