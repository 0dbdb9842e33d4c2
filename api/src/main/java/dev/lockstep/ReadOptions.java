package dev.lockstep;

/**
 * Hints for reads. They never change what a read returns.
 *
 * @param dontCache ask the kernel not to keep the read pages cached (best effort)
 */
public record ReadOptions(boolean dontCache) {
    /** No hints. */
    public static final ReadOptions NONE = new ReadOptions(false);
    /** Do not keep read pages cached. */
    public static final ReadOptions DONT_CACHE = new ReadOptions(true);

    /**
     * The union of two option sets.
     *
     * @param other more options
     * @return both
     */
    public ReadOptions with(ReadOptions other) {
        return new ReadOptions(dontCache || other.dontCache);
    }
}
