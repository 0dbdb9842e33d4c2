package dev.lockstep;

/**
 * Options for writes.
 *
 * @param sync the written bytes are durable when the write completes ({@code RWF_DSYNC})
 * @param dontCache ask the kernel not to keep the written pages cached (best effort)
 */
public record WriteOptions(boolean sync, boolean dontCache) {
    /** Plain write. */
    public static final WriteOptions NONE = new WriteOptions(false, false);
    /** Durable on completion. */
    public static final WriteOptions SYNC = new WriteOptions(true, false);
    /** Do not keep written pages cached. */
    public static final WriteOptions DONT_CACHE = new WriteOptions(false, true);

    /**
     * The union of two option sets.
     *
     * @param other more options
     * @return both
     */
    public WriteOptions with(WriteOptions other) {
        return new WriteOptions(sync || other.sync, dontCache || other.dontCache);
    }

    /**
     * These options without those of {@code other}.
     *
     * @param other options to remove
     * @return the difference
     */
    public WriteOptions without(WriteOptions other) {
        return new WriteOptions(sync && !other.sync, dontCache && !other.dontCache);
    }
}
