package dev.lockstep.sim;

import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;

/**
 * Choices drawn from one seed with the simulator's own generator: the same seed gives the same choices on every
 * JVM and platform. For tools that decide which runs to make — a search strategy's settings for a seed, a guided
 * explorer's next seed — so that the decision replays from the seed as the runs themselves do. Drawing here
 * touches no run: each instance has its own generator.
 *
 * <p>Not thread-safe: one thread draws from an instance.
 */
public final class SeededChoices {
    private final Generator generator;

    /**
     * Choices of {@code seed}.
     *
     * @param seed any value
     */
    public SeededChoices(long seed) {
        this.generator = new Generator(seed);
    }

    /**
     * A uniformly distributed value in {@code [0, bound)}.
     *
     * @param bound the exclusive upper bound, {@code > 0}
     * @return the value
     * @throws IllegalArgumentException naming the bound if it is not positive
     */
    public int nextInt(int bound) {
        return generator.nextInt(Site.APPLICATION, bound);
    }

    /**
     * A uniformly distributed 64-bit value.
     *
     * @return the value
     */
    public long nextLong() {
        return generator.nextLong(Site.APPLICATION);
    }

    /**
     * A uniformly distributed value in {@code [min, max]}, both inclusive.
     *
     * @param min the smallest value
     * @param max the largest value, {@code >= min}
     * @return the value
     * @throws IllegalArgumentException naming both if {@code max < min}
     */
    public long nextLongBetween(long min, long max) {
        return generator.nextLongBetween(Site.APPLICATION, min, max);
    }

    @Override
    public String toString() {
        return "SeededChoices[" + generator.seed() + ", " + generator.draws() + " draws]";
    }
}
