package dev.lockstep.sim.audit;

import dev.lockstep.sim.DecisionChain;
import java.util.List;
import java.util.Objects;

/**
 * The one seeded random source of a simulation: xoshiro256** (Blackman and Vigna), its 256-bit state seeded
 * from a 64-bit seed by SplitMix64.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Same seed and same sequence of calls give the same values, bit for bit, on every JVM: the algorithm is
 *       written out here, and nothing reads the wall clock, identity hashes or another random source.</li>
 *   <li>Every draw names its {@link Site}. The optional {@link DrawObserver} sees exactly one event per public
 *       draw method call ({@code shuffle} reports each of its swaps) whose outcome was not forced, with the value
 *       that call returned, so an {@link Auditor} can hash the draws and two runs can be compared draw by draw.
 *       A draw is forced when its arguments leave one outcome: a {@link #chance} of 0 or 1, a bound of 1, a range
 *       of one value. Such a draw advances the generator as any other does, so it still shows in every later
 *       draw's value, but it is not observed: its value says nothing the call did not (a configured fault rate of
 *       0 is rolled for every request, and hashing those rolls was a fifth of a network run's audit).</li>
 *   <li>A probability roll ({@link #chance}) always consumes exactly one draw, also for probability 0 or 1:
 *       the number of draws depends only on the calls made, not on configured rates, so changing a rate that
 *       never fires does not shift the rest of the run.</li>
 * </ul>
 *
 * <p>Not thread-safe: the simulator uses it from its one thread.
 */
public final class Generator {

    /** Receives every draw: an auditor hashes them, a recorder logs them. */
    @FunctionalInterface
    public interface DrawObserver {
        /**
         * Called once per draw, after the value is computed and before it is returned.
         *
         * @param site the decision site
         * @param value the drawn value; a {@code boolean} is reported as 1 or 0, a {@code double} as its raw
         *              bits
         */
        void onDraw(Site site, long value);
    }

    /**
     * A copy of the generator's state, for checkpoints: restoring it makes the generator repeat every later
     * draw exactly.
     *
     * @param seed the seed the generator was created with (kept for replay lines)
     * @param s0 state word 0
     * @param s1 state word 1
     * @param s2 state word 2
     * @param s3 state word 3
     * @param draws the number of draws made so far
     */
    public record State(long seed, long s0, long s1, long s2, long s3, long draws) {
        /**
         * Validates that the state is usable: xoshiro256** must never be all zero.
         */
        public State {
            if ((s0 | s1 | s2 | s3) == 0) {
                throw new IllegalArgumentException("Generator.State must not be all zero");
            }
            if (draws < 0) {
                throw new IllegalArgumentException("Generator.State.draws must be >= 0, was " + draws);
            }
        }
    }

    private static final long SPLITMIX_GAMMA = 0x9E3779B97F4A7C15L;
    /** 2^-53: turns the top 53 bits of a draw into a double in [0, 1). */
    private static final double DOUBLE_UNIT = 0x1.0p-53;

    private final long seed;
    private long s0;
    private long s1;
    private long s2;
    private long s3;
    private long draws;
    private DrawObserver observer;
    /** Where draws switch seeds: see {@link DecisionChain}. */
    private final DecisionChain chain;
    /** The index in {@link #chain} of the next segment to start. */
    private int nextSegment;
    /** The raw draw count at which the next segment starts; {@code Long.MAX_VALUE} when none is left. */
    private long nextSwitch = Long.MAX_VALUE;

    /**
     * A generator for a seed. Any seed is valid, 0 included.
     *
     * @param seed the seed
     */
    public Generator(long seed) {
        this(seed, DecisionChain.NONE);
    }

    /**
     * A generator for a seed whose draws switch to other seeds where {@code chain} says.
     *
     * @param seed the seed of the draws before the chain's first segment
     * @param chain where later draws come from
     */
    public Generator(long seed, DecisionChain chain) {
        this.seed = seed;
        this.chain = Objects.requireNonNull(chain, "chain");
        seedState(seed);
        findNextSegment();
    }

    private void seedState(long from) {
        long x = from;
        x += SPLITMIX_GAMMA;
        s0 = splitMix(x);
        x += SPLITMIX_GAMMA;
        s1 = splitMix(x);
        x += SPLITMIX_GAMMA;
        s2 = splitMix(x);
        x += SPLITMIX_GAMMA;
        s3 = splitMix(x);
        // SplitMix64 is a bijection on distinct inputs, so four consecutive outputs are never all zero.
    }

    /**
     * The first segment that has not started at the current draw count: one that starts exactly at it starts with
     * the next draw ({@link #nextRaw}), so a snapshot taken there and restored switches as the original did.
     */
    private void findNextSegment() {
        List<DecisionChain.Segment> segments = chain.segments();
        nextSegment = 0;
        while (nextSegment < segments.size() && segments.get(nextSegment).fromDraw() < draws) {
            nextSegment++;
        }
        nextSwitch = nextSegment < segments.size() ? segments.get(nextSegment).fromDraw() : Long.MAX_VALUE;
    }

    /** Starts the next segment of the chain: the following draws are those of a new generator of its seed. */
    private void switchSegment() {
        seedState(chain.segments().get(nextSegment).seed());
        nextSegment++;
        nextSwitch = nextSegment < chain.segments().size() ? chain.segments().get(nextSegment).fromDraw()
                : Long.MAX_VALUE;
    }

    /**
     * A generator resuming from a checkpointed state.
     *
     * @param state from {@link #snapshot()}
     * @return a generator whose draws continue exactly where the snapshot was taken
     */
    public static Generator fromState(State state) {
        return fromState(state, DecisionChain.NONE);
    }

    /**
     * A generator of a chained run resuming from a checkpointed state.
     *
     * @param state from {@link #snapshot()}
     * @param chain the chain of the generator the snapshot was taken from
     * @return a generator whose draws continue exactly where the snapshot was taken
     */
    public static Generator fromState(State state, DecisionChain chain) {
        Generator generator = new Generator(state.seed(), chain);
        generator.restore(state);
        return generator;
    }

    private static long splitMix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** One step of xoshiro256**. */
    private long nextRaw() {
        if (draws == nextSwitch) {
            switchSegment();
        }
        long result = Long.rotateLeft(s1 * 5, 7) * 9;
        long t = s1 << 17;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = Long.rotateLeft(s3, 45);
        draws++;
        return result;
    }

    private void observe(Site site, long value) {
        DrawObserver current = observer;
        if (current != null) {
            current.onDraw(site, value);
        }
    }

    /**
     * The seed this generator was created with.
     *
     * @return the seed
     */
    public long seed() {
        return seed;
    }

    /**
     * How many raw 64-bit draws were made so far (a bounded draw may take more than one).
     *
     * @return the count
     */
    public long draws() {
        return draws;
    }

    /**
     * Installs the observer called on every draw, replacing any previous one.
     *
     * @param observer the observer, or null for none
     */
    public void setObserver(DrawObserver observer) {
        this.observer = observer;
    }

    /**
     * A uniformly distributed 64-bit value.
     *
     * @param site the decision site
     * @return the value
     */
    public long nextLong(Site site) {
        Objects.requireNonNull(site, "site");
        long value = nextRaw();
        observe(site, value);
        return value;
    }

    /**
     * A uniformly distributed value in {@code [0, bound)}, without modulo bias.
     *
     * @param site the decision site
     * @param bound the exclusive upper bound, {@code > 0}
     * @return the value
     * @throws IllegalArgumentException if {@code bound <= 0}
     */
    public int nextInt(Site site, int bound) {
        Objects.requireNonNull(site, "site");
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be > 0, was " + bound);
        }
        int value = (int) boundedRaw(bound);
        if (bound > 1) {
            observe(site, value);
        }
        return value;
    }

    /**
     * A uniformly distributed value in {@code [0, bound)}, without modulo bias.
     *
     * @param site the decision site
     * @param bound the exclusive upper bound, {@code > 0}
     * @return the value
     * @throws IllegalArgumentException if {@code bound <= 0}
     */
    public long nextLong(Site site, long bound) {
        Objects.requireNonNull(site, "site");
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be > 0, was " + bound);
        }
        long value = boundedRaw(bound);
        if (bound > 1) {
            observe(site, value);
        }
        return value;
    }

    /**
     * A uniformly distributed value in {@code [min, max]}, both inclusive. Consumes a draw also when
     * {@code min == max}, so that the draw count does not depend on configured ranges.
     *
     * @param site the decision site
     * @param min the smallest value
     * @param max the largest value, {@code >= min}
     * @return the value
     * @throws IllegalArgumentException if {@code max < min}
     */
    public long nextLongBetween(Site site, long min, long max) {
        Objects.requireNonNull(site, "site");
        if (max < min) {
            throw new IllegalArgumentException("max must be >= min, was [" + min + ", " + max + "]");
        }
        long span = max - min + 1; // may overflow to <= 0 when the range covers more than half of long
        long value;
        if (span > 0) {
            value = min + boundedRaw(span);
        } else {
            long raw;
            do {
                raw = nextRaw();
            } while (raw < min || raw > max);
            value = raw;
        }
        if (max != min) {
            observe(site, value);
        }
        return value;
    }

    /**
     * A uniformly distributed double in {@code [0, 1)} with 53 bits of randomness.
     *
     * @param site the decision site
     * @return the value
     */
    public double nextDouble(Site site) {
        Objects.requireNonNull(site, "site");
        double value = (nextRaw() >>> 11) * DOUBLE_UNIT;
        observe(site, Double.doubleToRawLongBits(value));
        return value;
    }

    /**
     * A probability roll: true with the given probability. Always consumes exactly one draw. Probability 0 is
     * never true, probability 1 always; neither roll is observed (a forced draw: see the class doc).
     *
     * @param site the decision site
     * @param probability in {@code [0, 1]}
     * @return whether the event happens
     * @throws IllegalArgumentException if the probability is outside {@code [0, 1]} or NaN
     */
    public boolean chance(Site site, double probability) {
        Objects.requireNonNull(site, "site");
        if (!(probability >= 0.0 && probability <= 1.0)) {
            throw new IllegalArgumentException("probability must be in [0, 1], was " + probability);
        }
        double roll = (nextRaw() >>> 11) * DOUBLE_UNIT;
        boolean happens = roll < probability;
        if (probability != 0.0 && probability != 1.0) {
            observe(site, happens ? 1 : 0);
        }
        return happens;
    }

    /**
     * Shuffles a list in place (Fisher-Yates), one {@link #nextInt} draw per position from the end. A list of
     * fewer than two elements takes no draw.
     *
     * @param site the decision site
     * @param list the list to permute
     */
    public void shuffle(Site site, List<?> list) {
        Objects.requireNonNull(site, "site");
        for (int i = list.size() - 1; i > 0; i--) {
            int j = nextInt(site, i + 1);
            swap(list, i, j);
        }
    }

    private static <T> void swap(List<T> list, int i, int j) {
        T element = list.get(i);
        list.set(i, list.get(j));
        list.set(j, element);
    }

    /**
     * Rejection sampling on 63-bit draws: the accepted range is a whole multiple of {@code bound}, so every
     * result is equally likely.
     */
    private long boundedRaw(long bound) {
        long mask = bound - 1;
        if ((bound & mask) == 0) {
            return (nextRaw() >>> 1) & mask;
        }
        long candidate = nextRaw() >>> 1;
        long value = candidate % bound;
        while (candidate - value + mask < 0) { // overflow: candidate lies in the last, partial multiple
            candidate = nextRaw() >>> 1;
            value = candidate % bound;
        }
        return value;
    }

    /**
     * A copy of the current state, for checkpoints.
     *
     * @return the state
     */
    public State snapshot() {
        return new State(seed, s0, s1, s2, s3, draws);
    }

    /**
     * Replaces the current state with a snapshot: the following draws repeat those that followed the snapshot.
     * The observer is kept.
     *
     * @param state from {@link #snapshot()}
     * @throws IllegalArgumentException if the snapshot was taken from a generator with another seed
     */
    public void restore(State state) {
        if (state.seed() != seed) {
            throw new IllegalArgumentException(
                    "Generator.State of seed " + state.seed() + " restored into a generator of seed " + seed);
        }
        s0 = state.s0();
        s1 = state.s1();
        s2 = state.s2();
        s3 = state.s3();
        draws = state.draws();
        findNextSegment();
    }

    @Override
    public String toString() {
        return "Generator(seed=" + seed + ", draws=" + draws + ")";
    }
}
