package dev.lockstep.sim.audit;

import java.lang.ref.SoftReference;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link Auditor}'s table of 4 KiB blocks hashed lately, with their SHA-256: two-way set-associative by a hash
 * of the block's bytes (a block may sit in either slot of its set; a new one replaces the slot of the set not used
 * last). A block found here with equal bytes (a full comparison) has that digest, so remembering one changes no
 * digest, only whether it is worked out again: what a table holds never reaches a chain, whichever runs filled it.
 *
 * <h2>Threads</h2>
 * A table is not thread-safe and is held by one auditor at a time, so by one thread at a time. Tables no auditor
 * holds wait in {@link #IDLE}: a run's successor on any thread starts with the blocks its predecessors hashed (a
 * sweep's seeds write many of the same blocks: zero pages, headers, the same test data), so each is hashed once per
 * JVM rather than once per run. The deque hands a table over with a happens-before edge (the push, then the pop
 * that returns it), and an auditor that gave its table back never touches it again. Last in, first out: a thread
 * that runs seed after seed gets back the table it just gave. At most {@link #KEPT} wait, each held softly (about
 * 2 MiB apiece with the arrays known by identity, they are a cache: the collector may take them back when memory runs short); the rest are left to
 * the collector.
 *
 * <p>Hand-written rather than a cache library's map: the key is 4 KiB of bytes compared in full, the value is
 * worked out by the caller's own digest, and a lookup must not allocate.
 */
public final class RememberedBlocks {
    /** The slots of a table: a power of two. */
    static final int SLOTS = 256;

    private static final ConcurrentLinkedDeque<SoftReference<RememberedBlocks>> IDLE = new ConcurrentLinkedDeque<>();
    private static final AtomicInteger IDLE_COUNT = new AtomicInteger();
    private static final int KEPT = 2 * Runtime.getRuntime().availableProcessors() + 2;

    private final byte[][] bytes = new byte[SLOTS][];
    private final byte[][] digests = new byte[SLOTS][];
    private final int[] hashes = new int[SLOTS];
    /** For each set (a pair of slots), which of the two was used last: 0 or 1. */
    private final byte[] recent = new byte[SLOTS / 2];
    /**
     * Arrays that nobody changes, by identity, with their digest ({@link #digestOfUnchanging}): direct-mapped by
     * {@link System#identityHashCode}, a slot's array replaced by the next one that maps there.
     */
    private final byte[][] unchangingArrays = new byte[SLOTS][];
    private final byte[][] unchangingDigests = new byte[SLOTS][];
    /** The block being encoded, copied here by the auditor from its field or buffer. */
    private byte[] scratch = new byte[Auditor.BLOCK_BYTES];
    /** How many blocks this table's lookups have hashed, over every auditor that held it. */
    private long hashed;

    private RememberedBlocks() {
    }

    /**
     * A table no one holds: the one given back last, or a new one.
     *
     * @return the caller's until it gives it back
     */
    static RememberedBlocks take() {
        SoftReference<RememberedBlocks> idle;
        while ((idle = IDLE.pollFirst()) != null) {
            IDLE_COUNT.decrementAndGet();
            RememberedBlocks table = idle.get();
            if (table != null) {
                return table;
            }
        }
        return new RememberedBlocks();
    }

    /** Gives this table to the next {@link #take}; the caller must not touch it again. */
    void giveBack() {
        if (IDLE_COUNT.incrementAndGet() <= KEPT) {
            IDLE.offerFirst(new SoftReference<>(this));
        } else {
            IDLE_COUNT.decrementAndGet();
        }
    }

    /**
     * The set, the slots {@code 2 * set} and {@code 2 * set + 1}, where a block with this hash is remembered: the
     * top bits of the hash times the golden ratio (Fibonacci hashing). Blocks that differ in one byte have hashes
     * in an arithmetic progression ({@code Arrays.hashCode} is a polynomial), which the low bits of the hash folded
     * on itself sent three at a time into a few sets (the storage workload's 64 blocks hashed 30 to 38 of them
     * again in every run); the product spreads a progression over every set.
     *
     * @param hash {@code Arrays.hashCode} of the block
     * @return the set, {@code 0 <= set < SLOTS / 2}
     */
    static int set(int hash) {
        return (hash * 0x9E3779B9) >>> (Integer.SIZE - Integer.numberOfTrailingZeros(SLOTS / 2));
    }

    /**
     * Where the next block to look up goes: {@value Auditor#BLOCK_BYTES} bytes the caller fills, then asks
     * {@link #digestOfScratch}.
     *
     * @return the scratch array
     */
    byte[] scratch() {
        return scratch;
    }

    /**
     * How many blocks this table's lookups have hashed: a lookup that found its block remembered adds nothing.
     *
     * @return the count, over every holder of the table
     */
    long hashed() {
        return hashed;
    }

    /**
     * The SHA-256 of the block in {@link #scratch()}: remembered if a block of the same bytes was hashed lately, else
     * worked out with {@code sha256} and remembered in place of what was not used last in its set.
     *
     * @param sha256 the holder's digest, reset between uses
     * @return the block's digest, {@value Auditor#DIGEST_BYTES} bytes; the caller must not change it
     */
    byte[] digestOfScratch(MessageDigest sha256) {
        int hash = Arrays.hashCode(scratch);
        byte[] digest = remembered(scratch, hash);
        return digest != null ? digest : hashScratch(hash, sha256);
    }

    /**
     * The SHA-256 of {@code block}, an array of {@value Auditor#BLOCK_BYTES} bytes that nobody changes from now on
     * (a page the simulated file system shares, a write's data it keeps): known at once if this same array was
     * asked for lately, else as {@link #digestOfScratch} finds it, but compared in place, with no copy unless it
     * must be hashed. A write's block is compared once; each later read of the page that kept it costs a lookup.
     *
     * <p>The identity is only a shortcut to the digest of the same bytes, so it changes no digest: an array is
     * remembered here only if the caller promises it never changes, and its digest is that of its bytes.
     *
     * @param block the bytes, never changed by anyone from now on
     * @param sha256 the holder's digest, reset between uses
     * @return the block's digest, {@value Auditor#DIGEST_BYTES} bytes; the caller must not change it
     */
    byte[] digestOfUnchanging(byte[] block, MessageDigest sha256) {
        int at = System.identityHashCode(block) & (SLOTS - 1);
        if (unchangingArrays[at] == block) {
            return unchangingDigests[at];
        }
        int hash = Arrays.hashCode(block);
        byte[] digest = remembered(block, hash);
        if (digest == null) {
            // The table keeps arrays of its own (a replaced one becomes the next scratch), so the block is copied.
            System.arraycopy(block, 0, scratch, 0, Auditor.BLOCK_BYTES);
            digest = hashScratch(hash, sha256);
        }
        unchangingArrays[at] = block;
        unchangingDigests[at] = digest;
        return digest;
    }

    /** The digest remembered for a block of these bytes (whose {@code Arrays.hashCode} is {@code hash}), or null. */
    private byte[] remembered(byte[] block, int hash) {
        int first = 2 * set(hash);
        for (int slot = first; slot <= first + 1; slot++) {
            byte[] remembered = bytes[slot];
            if (remembered != null && hashes[slot] == hash && Arrays.equals(remembered, block)) {
                recent[first >> 1] = (byte) (slot - first);
                return digests[slot];
            }
        }
        return null;
    }

    /** Works out the digest of the scratch block, whose hash is {@code hash}, and remembers it. */
    private byte[] hashScratch(int hash, MessageDigest sha256) {
        byte[] block = scratch;
        int first = 2 * set(hash);
        byte[] digest = sha256.digest(block);
        hashed++;
        // The slot not used last takes the block; the scratch array becomes the slot's, and the block it
        // replaces, if any, is the next scratch.
        int slot = first + 1 - recent[first >> 1];
        byte[] replaced = bytes[slot];
        bytes[slot] = block;
        digests[slot] = digest;
        hashes[slot] = hash;
        recent[first >> 1] = (byte) (slot - first);
        scratch = replaced == null ? new byte[Auditor.BLOCK_BYTES] : replaced;
        return digest;
    }
}
