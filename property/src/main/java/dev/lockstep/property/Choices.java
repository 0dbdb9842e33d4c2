package dev.lockstep.property;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The source every {@link Gen} draws from: a sequence of choices, each a non-negative {@code long} no larger than
 * the bound the generator asked for, and every one recorded.
 *
 * <p>A try draws its choices from a {@link SplittableRandom} seeded with the try's seed. A shrink step replays an
 * edited copy of a failing try's record: choice {@code i} is the record's {@code i}th value (lowered to the bound
 * if larger), and a choice past the record's end is 0. Generators map choice 0 to their simplest value (the
 * bound nearest zero, the first alternative, the end of a list), so a shorter or lower sequence means a simpler
 * case, and values regenerated from it are valid by construction: the shrinker never needs to know what type it
 * shrinks. This is the approach of Hypothesis (MacIver, "Test-case reduction via test-case generation", ECOOP
 * 2020).
 *
 * <p>Not thread-safe: one try, one thread.
 */
public final class Choices {
    /** At most this many choices per try: a generator that draws more is looping and is stopped. */
    public static final int MAX_CHOICES = 100_000;

    private final SplittableRandom random;
    private final long[] replayed;
    private long[] values = new long[64];
    private boolean[] fixed = new boolean[64];
    private int size;
    private final List<int[]> spans = new ArrayList<>();

    private Choices(SplittableRandom random, long[] replayed) {
        this.random = random;
        this.replayed = replayed;
    }

    /**
     * Fresh choices drawn from {@code seed}.
     *
     * @param seed the try's seed
     * @return the source
     */
    public static Choices random(long seed) {
        return new Choices(new SplittableRandom(seed), null);
    }

    /**
     * Choices replayed from a record; 0 past its end.
     *
     * @param record the values
     * @return the source
     */
    public static Choices replay(long[] record) {
        return new Choices(null, record.clone());
    }

    /**
     * A choice in {@code [0, max]}; 0 is the simplest. In a fresh try a choice among fewer than 256 is uniform;
     * from a larger range, small values and the bounds are drawn more often than uniformly, because that is where
     * bugs live.
     *
     * @param max the largest value, not negative
     * @return the choice
     * @throws IllegalArgumentException if {@code max} is negative
     */
    public long choose(long max) {
        return record(max, false, -1);
    }

    /**
     * As {@link #choose}, but the shrinker leaves the value alone (it may still delete it with the span around
     * it): for a value where a smaller one is a different case, not a simpler one, such as a simulator's seed.
     *
     * @param max the largest value, not negative
     * @return the choice
     */
    public long chooseUnshrinkable(long max) {
        return record(max, true, -1);
    }

    /**
     * A choice of 0 or 1 where a fresh try draws 1 with probability {@code probabilityOfOne}; 0 is the simpler.
     *
     * @param probabilityOfOne in {@code [0, 1]}
     * @return true for 1
     */
    public boolean flip(double probabilityOfOne) {
        if (!(probabilityOfOne >= 0 && probabilityOfOne <= 1)) {
            throw new IllegalArgumentException("probability must be in [0, 1], was " + probabilityOfOne);
        }
        // A certain flip is the same in a replay: shrinking must not turn it into a case no try can draw.
        long one = probabilityOfOne >= 1 ? 1 : probabilityOfOne <= 0 ? 0
                : random == null ? -1 : (random.nextDouble() < probabilityOfOne ? 1 : 0);
        return record(1, false, one) == 1;
    }

    private long record(long max, boolean unshrinkable, long forced) {
        if (max < 0) {
            throw new IllegalArgumentException("a choice's bound must not be negative, was " + max);
        }
        if (size == MAX_CHOICES) {
            throw new Overrun();
        }
        long value;
        if (forced >= 0) {
            value = forced;
        } else if (random == null) {
            value = size < replayed.length ? Math.min(replayed[size], max) : 0;
        } else if (unshrinkable) {
            // A seed, say: no small or boundary values, which are no simpler than any other.
            value = max == Long.MAX_VALUE ? random.nextLong() & Long.MAX_VALUE : random.nextLong(max + 1);
        } else {
            value = draw(max);
        }
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
            fixed = Arrays.copyOf(fixed, size * 2);
        }
        values[size] = value;
        fixed[size] = unshrinkable;
        size++;
        return value;
    }

    private long draw(long max) {
        if (max < 256) {
            return random.nextLong(max + 1); // a pick among few: uniform, or frequencies would be skewed
        }
        int shape = random.nextInt(32);
        if (shape == 0) {
            return 0;
        }
        if (shape == 1) {
            return max;
        }
        if (shape < 6) {
            return random.nextLong(Math.min(max, 16) + 1);
        }
        return max == Long.MAX_VALUE ? random.nextLong() & Long.MAX_VALUE : random.nextLong(max + 1);
    }

    /**
     * Marks where a logical unit (a list element, say) starts: the shrinker tries deleting whole spans, which
     * removes the unit and keeps everything after it aligned.
     *
     * @return a token for {@link #endSpan}
     */
    public int startSpan() {
        return size;
    }

    /**
     * Marks where the unit begun at {@code start} ends.
     *
     * @param start what {@link #startSpan} returned
     */
    public void endSpan(int start) {
        if (size > start) {
            spans.add(new int[] {start, size});
        }
    }

    /** How many choices were made so far. */
    int size() {
        return size;
    }

    /** The values chosen so far, in order. */
    long[] values() {
        return Arrays.copyOf(values, size);
    }

    /** Which of {@link #values()} the shrinker must not lower. */
    boolean[] fixed() {
        return Arrays.copyOf(fixed, size);
    }

    /** The spans marked so far, each {@code [start, end)}. */
    List<int[]> spans() {
        return List.copyOf(spans);
    }

    /** Thrown when a try draws more than {@link #MAX_CHOICES} choices. */
    static final class Overrun extends RuntimeException {
        Overrun() {
            super("a generator drew more than " + MAX_CHOICES + " choices in one try: it does not terminate", null,
                    false, false);
        }
    }
}
