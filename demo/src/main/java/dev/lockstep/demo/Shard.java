package dev.lockstep.demo;

/**
 * A deterministic share of a seed sweep: shard {@code index} of {@code count} takes the seeds whose position in the
 * sweep ({@code seed - firstSeed}) is {@code index} modulo {@code count}. The shards of one sweep are disjoint and
 * together are exactly the sweep, whatever machine or order they run in, so a batch system that starts N copies
 * of {@code explore} with K = 0..N-1 (a CI job matrix, a Kubernetes Indexed Job's {@code JOB_COMPLETION_INDEX})
 * runs the whole sweep with no scheduler of Lockstep's own. Positions interleave rather than forming contiguous
 * blocks so that every shard sees early and late seeds alike and shards take about the same time.
 *
 * @param index this shard, from 0
 * @param count how many shards the sweep is cut into, at least 1
 */
public record Shard(int index, int count) {
    /** The whole sweep as one shard. */
    public static final Shard ALL = new Shard(0, 1);

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException naming the values if {@code count < 1} or {@code index} is outside
     *                                  {@code 0..count-1}
     */
    public Shard {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("a shard is K/N with N >= 1 and 0 <= K < N, was " + index + "/" + count);
        }
    }

    /**
     * Parses {@code K/N}.
     *
     * @param text the shard as the command line gives it
     * @return the shard
     * @throws IllegalArgumentException naming the text if it is not {@code K/N} with {@code 0 <= K < N}
     */
    public static Shard parse(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("a shard is K/N (for example 0/4), was '" + text + "'");
        }
        try {
            return new Shard(Decimal.parseInt(text.substring(0, slash)), Decimal.parseInt(text.substring(slash + 1)));
        } catch (NumberFormatException bad) {
            throw new IllegalArgumentException("a shard is K/N with whole numbers in decimal digits, was '" + text
                    + "'");
        }
    }

    /**
     * How many of a sweep's seeds are this shard's.
     *
     * @param seeds the sweep's number of seeds, {@code >= 0}
     * @return the length of {@link #seeds}
     */
    public int size(int seeds) {
        return seeds <= index ? 0 : (int) (((long) seeds - index + count - 1) / count);
    }

    /**
     * The seeds of this shard, in increasing order.
     *
     * @param firstSeed the sweep's first seed
     * @param seeds the sweep's number of seeds
     * @return this shard's seeds
     */
    public long[] seeds(long firstSeed, int seeds) {
        int mine = size(seeds);
        long[] result = new long[mine];
        for (int i = 0; i < mine; i++) {
            result[i] = firstSeed + index + (long) i * count;
        }
        return result;
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }
}
