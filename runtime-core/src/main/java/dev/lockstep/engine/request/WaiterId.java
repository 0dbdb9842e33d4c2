package dev.lockstep.engine.request;

/**
 * The identity of one request admitted to a worker's driver: a slab index and the generation of that slot.
 * A released index is reused with a new generation, so every message or completion carrying an old
 * generation is recognised as stale and ignored. Generations never wrap: an index whose generation reached
 * {@link #MAX_GENERATION} is retired by its driver instead of being reused, so no stale id can ever name a
 * live request.
 *
 * <p>Packed into a ring's user data as {@code cancel bit (63) | generation (62..32) | index (31..0)}. The
 * value with every bit set is never produced (the generation skips its all-ones value) and is reserved for
 * rings' internal use.
 *
 * @param index the slab index, {@code >= 0}
 * @param generation the slot's generation, {@code 0 <= generation < 2^31 - 1}
 */
public record WaiterId(int index, int generation) {
    /** The cancel bit: set in the user data of the {@code ASYNC_CANCEL} aimed at a request. */
    public static final long CANCEL_BIT = 1L << 63;
    /** The largest generation; a slot that reaches it is not reused. */
    static final int MAX_GENERATION = Integer.MAX_VALUE - 1;

    /**
     * The user data of this request's own submission.
     *
     * @return the packed id, cancel bit clear
     */
    public long userData() {
        return pack(index, generation);
    }

    /**
     * The user data of a slot's submission, without making an id (the driver's hot path).
     *
     * @param index the slab index
     * @param generation the slot's generation
     * @return the packed id, cancel bit clear
     */
    static long pack(int index, int generation) {
        return ((long) generation << 32) | (index & 0xFFFF_FFFFL);
    }

    /**
     * The slab index in user data.
     *
     * @param userData packed id
     * @return the index
     */
    static int indexOf(long userData) {
        return (int) userData;
    }

    /**
     * The generation in user data, ignoring the cancel bit.
     *
     * @param userData packed id
     * @return the generation
     */
    static int generationOf(long userData) {
        return (int) ((userData & ~CANCEL_BIT) >>> 32);
    }

    /**
     * Decodes user data, ignoring the cancel bit.
     *
     * @param userData packed id
     * @return the id
     */
    public static WaiterId fromUserData(long userData) {
        return new WaiterId(indexOf(userData), generationOf(userData));
    }

    /**
     * Whether user data belongs to a cancellation rather than to a request.
     *
     * @param userData packed id
     * @return true if the cancel bit is set
     */
    public static boolean isCancel(long userData) {
        return (userData & CANCEL_BIT) != 0;
    }
}
