package dev.lockstep.sim.audit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The bytes of an {@link Auditor}'s chain: the encoded events since the last chunk, the chain they are hashed onto
 * a chunk at a time, and the encoding of each part of an event — its kind, its count of fields, numbers, fields,
 * long fields by blocks — exactly as the format in {@link Auditor}'s class doc gives it. The auditor's writers call
 * {@link #ensure} for an event's room, put its parts, and end it with {@link #endEvent}. The SHA-256 of a long
 * field's blocks is looked up in, or added to, a table of {@link RememberedBlocks} taken from the last run.
 *
 * <p>Not thread-safe: the simulator uses it from its one thread.
 */
final class AuditChain {
    private static final java.lang.invoke.VarHandle LONG_BIG_ENDIAN = java.lang.invoke.MethodHandles
            .byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private final MessageDigest sha256;
    /** The chain after the last chunk. */
    private byte[] chain;
    /** The encoded events since the last chunk: {@code pending[0, pendingLength)}. */
    private byte[] pending;
    private int pendingLength;
    private long events;
    /**
     * The table of blocks hashed lately ({@link RememberedBlocks}), taken when this chain hashes its first block
     * and given back by {@link #releaseRememberedBlocks}; null in between.
     */
    private RememberedBlocks blocks;
    /** The blocks this chain worked out a SHA-256 for (those it found remembered are not counted). */
    private long blocksHashed;

    /**
     * A chain that goes on from {@code chain} after {@code events} events, with {@code pending} not yet hashed.
     */
    AuditChain(byte[] chain, long events, byte[] pending) {
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        this.chain = chain;
        this.events = events;
        this.pending = Arrays.copyOf(pending, Math.max(Auditor.CHUNK_BYTES + 4096, pending.length * 2));
        this.pendingLength = pending.length;
    }

    /** An independent chain with the same bytes so far. */
    AuditChain copy() {
        return new AuditChain(chain.clone(), events, Arrays.copyOf(pending, pendingLength));
    }

    /** A copy of the chain's state, for checkpoints. */
    Auditor.State snapshot() {
        return new Auditor.State(chain, events, Arrays.copyOf(pending, pendingLength));
    }

    /** The number of events ended since the chain began (checkpoints included). */
    long events() {
        return events;
    }

    /** The digest now: the chain, or the chain with the pending events hashed onto it (see Auditor's class doc). */
    byte[] current() {
        if (pendingLength == 0) {
            return chain.clone();
        }
        sha256.update(chain);
        sha256.update(pending, 0, pendingLength);
        return sha256.digest();
    }

    /** Makes room for {@code more} bytes, so that what follows is written without a check each. */
    void ensure(int more) {
        if (pendingLength + more > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + more));
        }
    }

    /** The count of an event's fields, under 128 (one varint byte); the caller has made room for it. */
    void putCount(int fields) {
        assert fields >= 0 && fields < 128 && pendingLength < pending.length : "a count of " + fields
                + " fields at " + pendingLength + " of " + pending.length + " bytes";
        pending[pendingLength++] = (byte) fields;
    }

    void putKind(AuditKind kind) {
        byte[] encoded = kind.encoded;
        if (encoded.length == 1) {
            ensure(1);
            pending[pendingLength++] = encoded[0];
            return;
        }
        ensure(encoded.length);
        System.arraycopy(encoded, 0, pending, pendingLength, encoded.length);
        pendingLength += encoded.length;
    }

    /**
     * A field holding {@code value} as {@link Auditor#u64} encodes it: its length, then its big-endian bytes. One
     * 8-byte store of the value shifted to the top writes them (the bytes past the field are overwritten by what
     * comes next): every caller has made room for 9 bytes per number.
     */
    void putNumber(long value) {
        int bytes = (Long.SIZE + 7 - Long.numberOfLeadingZeros(value)) >>> 3;
        int at = pendingLength;
        assert at + 1 + Long.BYTES <= pending.length : "a number at " + at + " of " + pending.length
                + " bytes: its event made too little room";
        pending[at] = (byte) bytes;
        LONG_BIG_ENDIAN.set(pending, at + 1, bytes == 0 ? 0L : value << (Long.SIZE - 8 * bytes));
        pendingLength = at + 1 + bytes;
    }

    /** A field holding {@code utf8(String.valueOf(value))}: its length, then the decimal digits in ASCII. */
    void putDecimal(int value) {
        long rest = Math.abs((long) value);
        int digits = 1;
        for (long power = 10; power <= rest; power *= 10) {
            digits++;
        }
        int length = digits + (value < 0 ? 1 : 0);
        pending[pendingLength++] = (byte) length; // at most 11 bytes: one varint byte
        if (value < 0) {
            pending[pendingLength++] = '-';
        }
        for (int at = pendingLength + digits - 1; at >= pendingLength; at--) {
            pending[at] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        pendingLength += digits;
    }

    void putField(byte[] bytes) {
        if (bytes.length >= Auditor.BLOCK_BYTES) {
            putPayload(bytes, null, bytes.length);
            return;
        }
        putVarint(bytes.length);
        ensure(bytes.length);
        System.arraycopy(bytes, 0, pending, pendingLength, bytes.length);
        pendingLength += bytes.length;
    }

    /**
     * A field of {@code length} bytes, from {@code array} or else from {@code segment}, in the encoding of the class
     * doc: its length, the digest of each whole block, the rest as it is.
     */
    private void putPayload(byte[] array, MemorySegment segment, int length) {
        putPayload(array, segment, length, null);
    }

    /**
     * {@link #putPayload(byte[], MemorySegment, int)}, told that {@code unchanging}, if not null, is an array nobody
     * changes from now on whose bytes are exactly those of the field: a field of one block is then looked up by
     * that array ({@link RememberedBlocks#digestOfUnchanging}), with no copy. The same encoding.
     */
    void putPayload(byte[] array, MemorySegment segment, int length, byte[] unchanging) {
        if (unchanging != null && length == Auditor.BLOCK_BYTES && unchanging.length == Auditor.BLOCK_BYTES) {
            putVarint(length);
            ensure(Auditor.DIGEST_BYTES);
            RememberedBlocks table = rememberedBlocks();
            long before = table.hashed();
            System.arraycopy(table.digestOfUnchanging(unchanging, sha256), 0, pending, pendingLength,
                    Auditor.DIGEST_BYTES);
            blocksHashed += table.hashed() - before;
            pendingLength += Auditor.DIGEST_BYTES;
            return;
        }
        putVarint(length);
        int blockCount = length / Auditor.BLOCK_BYTES;
        int rest = length - blockCount * Auditor.BLOCK_BYTES;
        ensure(blockCount * Auditor.DIGEST_BYTES + rest);
        for (int block = 0; block < blockCount; block++) {
            byte[] scratch = rememberedBlocks().scratch();
            if (array != null) {
                System.arraycopy(array, block * Auditor.BLOCK_BYTES, scratch, 0, Auditor.BLOCK_BYTES);
            } else {
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, (long) block * Auditor.BLOCK_BYTES, scratch, 0,
                        Auditor.BLOCK_BYTES);
            }
            System.arraycopy(blockDigest(), 0, pending, pendingLength, Auditor.DIGEST_BYTES);
            pendingLength += Auditor.DIGEST_BYTES;
        }
        if (rest > 0) {
            int from = blockCount * Auditor.BLOCK_BYTES;
            if (array != null) {
                System.arraycopy(array, from, pending, pendingLength, rest);
            } else {
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, from, pending, pendingLength, rest);
            }
            pendingLength += rest;
        }
    }

    /** How many blocks of long fields this chain hashed, not counting those whose digest it found remembered. */
    long blocksHashed() {
        return blocksHashed;
    }

    /** This chain's table of remembered blocks, taken when it has none. */
    private RememberedBlocks rememberedBlocks() {
        RememberedBlocks held = blocks;
        if (held == null) {
            held = RememberedBlocks.take();
            blocks = held;
        }
        return held;
    }

    /** See {@link Auditor#releaseRememberedBlocks}. */
    void releaseRememberedBlocks() {
        RememberedBlocks held = blocks;
        blocks = null;
        if (held != null) {
            held.giveBack();
        }
    }

    /** The SHA-256 of the block in the table's scratch array, remembered or worked out (and then counted). */
    private byte[] blockDigest() {
        RememberedBlocks table = blocks;
        long before = table.hashed();
        byte[] digest = table.digestOfScratch(sha256);
        blocksHashed += table.hashed() - before;
        return digest;
    }

    void putVarint(int value) {
        ensure(5);
        pendingLength = writeVarint(pending, pendingLength, value);
    }

    /** The unsigned LEB128 encoding of a non-negative value. */
    static byte[] varint(int value) {
        byte[] out = new byte[5];
        return Arrays.copyOf(out, writeVarint(out, 0, value));
    }

    /** Writes {@code value} as unsigned LEB128 at {@code out[at]}; returns where it ends. */
    private static int writeVarint(byte[] out, int at, int value) {
        int rest = value;
        while ((rest & ~0x7F) != 0) {
            out[at++] = (byte) ((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        out[at++] = (byte) rest;
        return at;
    }

    /** Ends an event: when the unhashed bytes reach a chunk, the chain takes them in. */
    void endEvent() {
        events++;
        if (pendingLength >= Auditor.CHUNK_BYTES) {
            sha256.update(chain);
            sha256.update(pending, 0, pendingLength);
            chain = sha256.digest();
            pendingLength = 0;
        }
    }
}
