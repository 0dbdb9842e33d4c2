package dev.lockstep.property;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A generator: draws a value from {@link Choices}. Every generator here maps the choice 0 to its simplest value,
 * so a failing case shrinks without a shrinker of its own: the harness shortens and lowers the recorded choices
 * and draws the value again.
 *
 * <p>Generators are functions of the choices and nothing else (no state, no other randomness), which is what
 * makes tries and shrinking deterministic. Combine several by drawing them in order inside a lambda, which is
 * itself a generator:
 *
 * <pre>{@code
 * Gen<Write> writes = choices -> new Write(Gen.ints(0, 4096).generate(choices),
 *         Gen.bytes(1, 512).generate(choices));
 * }</pre>
 *
 * @param <T> the values
 */
@FunctionalInterface
public interface Gen<T> {

    /**
     * Draws one value.
     *
     * @param choices the source
     * @return the value
     */
    T generate(Choices choices);

    /**
     * The values mapped by {@code function}; shrinks as this generator does.
     *
     * @param function the mapping, a pure function
     * @param <R> the new values
     * @return the generator
     */
    default <R> Gen<R> map(Function<? super T, ? extends R> function) {
        Objects.requireNonNull(function, "function");
        return choices -> function.apply(generate(choices));
    }

    /**
     * Only the values {@code accept} accepts: draws again (at most 100 times, then the try is discarded) until one
     * is. Keep the rejected share small; a generator that builds valid values directly shrinks better.
     *
     * @param accept the condition
     * @return the generator
     */
    default Gen<T> filter(Predicate<? super T> accept) {
        Objects.requireNonNull(accept, "accept");
        return choices -> {
            for (int attempt = 0; attempt < 100; attempt++) {
                int span = choices.startSpan();
                T value = generate(choices);
                choices.endSpan(span);
                if (accept.test(value)) {
                    return value;
                }
            }
            throw new Rejected("a filter rejected 100 values in a row");
        };
    }

    /**
     * A generator chosen by this one's value: e.g. a length, then a list of that length.
     *
     * @param next the next generator, from the value
     * @param <R> its values
     * @return the generator
     */
    default <R> Gen<R> flatMap(Function<? super T, ? extends Gen<? extends R>> next) {
        Objects.requireNonNull(next, "next");
        return choices -> next.apply(generate(choices)).generate(choices);
    }

    /**
     * Lists of this generator's values, from {@code minSize} to {@code maxSize} long. Each element past the
     * minimum follows a "one more" choice, and each element is a span the shrinker may delete, so lists shrink
     * by losing elements as well as by simplifying them.
     *
     * @param minSize at least 0
     * @param maxSize at least {@code minSize}
     * @return the generator
     */
    default Gen<List<T>> list(int minSize, int maxSize) {
        if (minSize < 0 || maxSize < minSize) {
            throw new IllegalArgumentException("list sizes must satisfy 0 <= min <= max, were " + minSize + " and "
                    + maxSize);
        }
        // Past the minimum, the expected number of extra elements is about min(spread / 2, 25).
        double extra = Math.min((maxSize - minSize) / 2.0, 25.0);
        double more = extra / (extra + 1);
        return choices -> {
            List<T> values = new ArrayList<>();
            while (values.size() < maxSize) {
                int span = choices.startSpan();
                if (values.size() >= minSize && !choices.flip(more)) {
                    choices.endSpan(span);
                    break;
                }
                values.add(generate(choices));
                choices.endSpan(span);
            }
            return values;
        };
    }

    /**
     * Always {@code value}; draws nothing.
     *
     * @param value the value
     * @param <T> its type
     * @return the generator
     */
    static <T> Gen<T> just(T value) {
        return choices -> value;
    }

    /**
     * Integers in {@code [min, max]}, shrinking towards the one nearest zero.
     *
     * @param min the smallest
     * @param max the largest, at least {@code min}
     * @return the generator
     */
    static Gen<Integer> ints(int min, int max) {
        Gen<Long> longs = longs(min, max);
        return choices -> (int) (long) longs.generate(choices);
    }

    /**
     * Longs in {@code [min, max]}, shrinking towards the one nearest zero.
     *
     * @param min the smallest
     * @param max the largest, at least {@code min}
     * @return the generator
     */
    static Gen<Long> longs(long min, long max) {
        if (max < min) {
            throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
        }
        if (min >= 0) {
            return choices -> min + choices.choose(max - min);
        }
        if (max < 0 || (max == 0 && min != Long.MIN_VALUE)) {
            // (From Long.MIN_VALUE to 0, max - min overflows: that range is drawn as one across zero, below.)
            return choices -> max - choices.choose(max - min);
        }
        // Across zero: a sign (0 = not negative), then the distance from zero.
        return choices -> choices.choose(1) == 0 ? choices.choose(max) : -1 - choices.choose(-(min + 1));
    }

    /**
     * Any long.
     *
     * @return the generator
     */
    static Gen<Long> longs() {
        return longs(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Any int.
     *
     * @return the generator
     */
    static Gen<Integer> ints() {
        return ints(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /**
     * Seeds for a simulator: any non-negative long, never lowered by the shrinker (a smaller seed is another run,
     * not a simpler one).
     *
     * @return the generator
     */
    static Gen<Long> seeds() {
        return choices -> choices.chooseUnshrinkable(Long.MAX_VALUE);
    }

    /**
     * False or true, shrinking to false.
     *
     * @return the generator
     */
    static Gen<Boolean> booleans() {
        return choices -> choices.choose(1) == 1;
    }

    /**
     * Byte arrays from {@code minLength} to {@code maxLength} long, shrinking towards short arrays of zeros.
     *
     * @param minLength at least 0
     * @param maxLength at least {@code minLength}
     * @return the generator
     */
    static Gen<byte[]> bytes(int minLength, int maxLength) {
        Gen<List<Integer>> values = ints(0, 255).list(minLength, maxLength);
        return choices -> {
            List<Integer> list = values.generate(choices);
            byte[] bytes = new byte[list.size()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (int) list.get(i);
            }
            return bytes;
        };
    }

    /**
     * One of {@code values}, shrinking towards the first.
     *
     * @param values at least one (null among them is a value like any other)
     * @param <T> their type
     * @return the generator
     */
    @SafeVarargs
    static <T> Gen<T> choose(T... values) {
        return choose(Arrays.asList(values));
    }

    /**
     * One of {@code values}, shrinking towards the first.
     *
     * @param values at least one (null among them is a value like any other)
     * @param <T> their type
     * @return the generator
     */
    static <T> Gen<T> choose(List<? extends T> values) {
        // A copy that may hold null, a value like any other (as Gen.just(null) gives).
        List<T> copy = java.util.Collections.unmodifiableList(
                new java.util.ArrayList<>(Objects.requireNonNull(values, "values")));
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("nothing to choose from");
        }
        return choices -> copy.get((int) choices.choose(copy.size() - 1));
    }

    /**
     * A constant of {@code type}, shrinking towards the first declared.
     *
     * @param type the enum
     * @param <E> its type
     * @return the generator
     */
    static <E extends Enum<E>> Gen<E> enums(Class<E> type) {
        E[] constants = Objects.requireNonNull(type, "type").getEnumConstants();
        if (constants == null || constants.length == 0) {
            throw new IllegalArgumentException("enum " + type.getName() + " has no constants to choose from");
        }
        return choose(constants);
    }

    /**
     * A value of one of {@code alternatives}, picked evenly, shrinking towards the first.
     *
     * @param alternatives at least one
     * @param <T> the values
     * @return the generator
     */
    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... alternatives) {
        for (int i = 0; i < Objects.requireNonNull(alternatives, "alternatives").length; i++) {
            Objects.requireNonNull(alternatives[i], "alternative " + i + " of oneOf is null");
        }
        List<Gen<? extends T>> copy = List.of(alternatives);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("no alternatives");
        }
        return choices -> copy.get((int) choices.choose(copy.size() - 1)).generate(choices);
    }

    /**
     * One alternative of {@link #frequency}: its weight and its generator.
     *
     * @param weight positive
     * @param gen the generator
     * @param <T> its values
     */
    record Weighted<T>(int weight, Gen<? extends T> gen) {
        /** Checks the weight. */
        public Weighted {
            if (weight < 1) {
                throw new IllegalArgumentException("weights must be positive, was " + weight);
            }
            Objects.requireNonNull(gen, "gen");
        }
    }

    /**
     * An alternative of {@link #frequency} that always gives {@code value}.
     *
     * @param weight positive
     * @param value the value
     * @param <T> its type
     * @return the alternative
     */
    static <T> Weighted<T> weighted(int weight, T value) {
        return new Weighted<>(weight, just(value));
    }

    /**
     * An alternative of {@link #frequency}.
     *
     * @param weight positive
     * @param gen the generator
     * @param <T> its values
     * @return the alternative
     */
    static <T> Weighted<T> weighted(int weight, Gen<? extends T> gen) {
        return new Weighted<>(weight, gen);
    }

    /**
     * A value of one of {@code alternatives}, each picked in proportion to its weight, shrinking towards the
     * first: put the simplest (or the no-op) first.
     *
     * @param alternatives at least one
     * @param <T> the values
     * @return the generator
     */
    @SafeVarargs
    static <T> Gen<T> frequency(Weighted<? extends T>... alternatives) {
        List<Weighted<? extends T>> copy = List.of(alternatives);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("no alternatives");
        }
        long total = 0;
        for (Weighted<? extends T> alternative : copy) {
            total += alternative.weight();
        }
        long last = total - 1;
        return choices -> {
            long pick = choices.choose(last);
            for (Weighted<? extends T> alternative : copy) {
                if (pick < alternative.weight()) {
                    return alternative.gen().generate(choices);
                }
                pick -= alternative.weight();
            }
            throw new AssertionError("unreachable: the pick is below the total weight");
        };
    }

    /** Thrown by a generator to discard the try it is drawing (a {@link #filter} that found nothing). */
    final class Rejected extends RuntimeException {
        /**
         * @param message why
         */
        public Rejected(String message) {
            super(message, null, false, false);
        }
    }
}
