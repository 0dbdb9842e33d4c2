package dev.lockstep.demo.kv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The byte formats of the log: segment headers, records and manifest entries, all little-endian and each
 * protected by a CRC32C. Pure functions; thread-safe.
 */
public final class Records {
    /** {@code "lockstep"} in ASCII: the first eight bytes of every segment. */
    static final long SEGMENT_MAGIC = ByteBuffer.wrap("lockstep".getBytes(StandardCharsets.US_ASCII))
            .order(ByteOrder.LITTLE_ENDIAN).getLong();
    /** Magic, segment id, format version, CRC32C of the preceding 20 bytes. */
    public static final int SEGMENT_HEADER_BYTES = 24;
    /** The format version written in segment headers. */
    static final int FORMAT_VERSION = 1;
    /** CRC32C and body length. */
    public static final int RECORD_HEADER_BYTES = 8;
    /** Type, sequence and key length. */
    static final int BODY_FIXED_BYTES = 1 + 8 + 2;
    /** The longest key. */
    public static final int MAX_KEY_BYTES = 1024;
    /** The longest value. */
    public static final int MAX_VALUE_BYTES = 1 << 20;
    /** Segment id and its CRC32C. */
    static final int MANIFEST_ENTRY_BYTES = 12;

    /** The type byte of a put. */
    public static final byte PUT = 1;
    /** The type byte of a delete (a tombstone). */
    public static final byte DELETE = 2;

    private Records() {
    }

    /**
     * A decoded record.
     *
     * @param type {@link #PUT} or {@link #DELETE}
     * @param sequence the store-wide sequence number
     * @param key the key
     * @param valueOffset where the value starts, relative to the record's start
     * @param valueLength the value's length
     * @param totalBytes the whole record's length, header included
     */
    record Decoded(byte type, long sequence, byte[] key, int valueOffset, int valueLength, int totalBytes) {
    }

    static int crc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /**
     * Encodes a record.
     *
     * @param type put or delete
     * @param sequence its sequence number
     * @param key the key
     * @param value the value; ignored for a delete
     * @return the bytes
     */
    public static byte[] encode(byte type, long sequence, byte[] key, byte[] value) {
        byte[] out = encodeUnsealed(type, key, value);
        seal(out, sequence);
        return out;
    }

    /**
     * A record's bytes without its sequence number and checksum, which {@link #seal} writes: so that a write's
     * key and value are copied once, when it is submitted, and numbered when its batch commits.
     *
     * @param type put or delete
     * @param key the key
     * @param value the value; ignored for a delete
     * @return the bytes: header, type, sequence, key length, key and value
     */
    static byte[] encodeUnsealed(byte type, byte[] key, byte[] value) {
        int valueLength = type == PUT ? value.length : 0;
        int bodyLength = BODY_FIXED_BYTES + key.length + valueLength;
        byte[] out = new byte[RECORD_HEADER_BYTES + bodyLength];
        ByteBuffer buffer = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(4, bodyLength);
        buffer.put(8, type);
        buffer.putShort(17, (short) key.length);
        System.arraycopy(key, 0, out, 19, key.length);
        if (valueLength > 0) {
            System.arraycopy(value, 0, out, 19 + key.length, valueLength);
        }
        return out;
    }

    /**
     * Writes the sequence number and then the checksum into a record from {@link #encodeUnsealed}.
     *
     * @param record the record's bytes
     * @param sequence its sequence number
     */
    static void seal(byte[] record, long sequence) {
        ByteBuffer buffer = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(9, sequence);
        buffer.putInt(0, crc(record, 4, record.length - 4));
    }

    /**
     * Decodes the record at {@code offset}, or reports why there is none.
     *
     * @param bytes the segment's bytes
     * @param offset where the record should start
     * @param limit the end of the valid bytes
     * @param verifyChecksum false only under {@link InjectedBug#SKIP_TORN_TAIL_CHECK}
     * @return the record, or null if the bytes from {@code offset} are not a whole, valid record
     */
    static Decoded decode(byte[] bytes, int offset, int limit, boolean verifyChecksum) {
        if (limit - offset < RECORD_HEADER_BYTES) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int storedCrc = buffer.getInt(offset);
        int bodyLength = buffer.getInt(offset + 4);
        if (bodyLength < BODY_FIXED_BYTES || bodyLength > BODY_FIXED_BYTES + MAX_KEY_BYTES + MAX_VALUE_BYTES
                || bodyLength > limit - offset - RECORD_HEADER_BYTES) {
            return null;
        }
        int total = RECORD_HEADER_BYTES + bodyLength;
        if (verifyChecksum && crc(bytes, offset + 4, total - 4) != storedCrc) {
            return null;
        }
        byte type = bytes[offset + 8];
        long sequence = buffer.getLong(offset + 9);
        int keyLength = Short.toUnsignedInt(buffer.getShort(offset + 17));
        if ((type != PUT && type != DELETE) || keyLength == 0 || keyLength > MAX_KEY_BYTES
                || BODY_FIXED_BYTES + keyLength > bodyLength) {
            return null;
        }
        byte[] key = new byte[keyLength];
        System.arraycopy(bytes, offset + 19, key, 0, keyLength);
        int valueOffset = 19 + keyLength;
        return new Decoded(type, sequence, key, valueOffset, total - valueOffset, total);
    }

    /**
     * A segment header.
     *
     * @param segmentId the segment's id
     * @return {@value #SEGMENT_HEADER_BYTES} bytes
     */
    static byte[] segmentHeader(long segmentId) {
        byte[] out = new byte[SEGMENT_HEADER_BYTES];
        ByteBuffer buffer = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(0, SEGMENT_MAGIC);
        buffer.putLong(8, segmentId);
        buffer.putInt(16, FORMAT_VERSION);
        buffer.putInt(20, crc(out, 0, 20));
        return out;
    }

    /**
     * Whether {@code bytes} start with the valid header of segment {@code segmentId}.
     *
     * @param bytes the segment's first bytes
     * @param segmentId the expected id
     * @return true if valid
     */
    static boolean validSegmentHeader(byte[] bytes, long segmentId) {
        if (bytes.length < SEGMENT_HEADER_BYTES) {
            return false;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return buffer.getLong(0) == SEGMENT_MAGIC && buffer.getLong(8) == segmentId
                && buffer.getInt(16) == FORMAT_VERSION && buffer.getInt(20) == crc(bytes, 0, 20);
    }

    /**
     * A manifest entry.
     *
     * @param segmentId the listed segment
     * @return {@value #MANIFEST_ENTRY_BYTES} bytes
     */
    static byte[] manifestEntry(long segmentId) {
        byte[] out = new byte[MANIFEST_ENTRY_BYTES];
        ByteBuffer buffer = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(0, segmentId);
        buffer.putInt(8, crc(out, 0, 8));
        return out;
    }

    /**
     * The segment id of the manifest entry at {@code offset}, or -1 if the entry is torn or corrupt.
     *
     * @param bytes the manifest
     * @param offset the entry's offset
     * @return the id, or -1
     */
    static long manifestEntryAt(byte[] bytes, int offset) {
        if (bytes.length - offset < MANIFEST_ENTRY_BYTES) {
            return -1;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long id = buffer.getLong(offset);
        return crc(bytes, offset, 8) == buffer.getInt(offset + 8) && id > 0 ? id : -1;
    }

    /**
     * The blob name of a segment.
     *
     * @param segmentId the id
     * @return {@code seg-} and 16 hex digits, so names sort in id order
     */
    public static String segmentName(long segmentId) {
        return String.format("seg-%016x", segmentId);
    }

    /**
     * The id of a segment blob name, or -1 if the name is not a segment's.
     *
     * @param name the blob name
     * @return the id, or -1
     */
    public static long segmentIdOf(String name) {
        if (name.length() != 20 || !name.startsWith("seg-")) {
            return -1;
        }
        try {
            return Long.parseUnsignedLong(name.substring(4), 16);
        } catch (NumberFormatException notOurs) {
            return -1;
        }
    }
}
