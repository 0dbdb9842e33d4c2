package dev.lockstep.sim;

import java.util.Arrays;

/**
 * The bytes of one file image: a growable array and a size. Bytes between the size and the array's end are
 * always zero, so growing the size exposes zeros, as extending a file does.
 */
final class ByteImage {
    /** The largest file the simulator holds: a Java array's practical limit. */
    static final long MAX_SIZE = Integer.MAX_VALUE - 8;

    private byte[] bytes;
    private int size;

    ByteImage() {
        this.bytes = new byte[0];
    }

    private ByteImage(byte[] bytes, int size) {
        this.bytes = bytes;
        this.size = size;
    }

    long size() {
        return size;
    }

    ByteImage copy() {
        return new ByteImage(Arrays.copyOf(bytes, size), size);
    }

    byte[] toArray() {
        return Arrays.copyOf(bytes, size);
    }

    /** Copies up to {@code length} bytes from {@code offset}; returns how many (0 at or past the end). */
    int read(long offset, byte[] destination, int destinationOffset, int length) {
        if (offset >= size) {
            return 0;
        }
        int count = (int) Math.min(length, size - offset);
        System.arraycopy(bytes, (int) offset, destination, destinationOffset, count);
        return count;
    }

    /** Writes {@code length} bytes at {@code offset}, zero-filling any gap and growing the size. */
    void write(long offset, byte[] source, int sourceOffset, int length) {
        long end = offset + length;
        ensureCapacity(end);
        System.arraycopy(source, sourceOffset, bytes, (int) offset, length);
        if (end > size) {
            size = (int) end;
        }
    }

    /** Sets the size: truncating zeroes the cut bytes so a later extension reads zeros. */
    void resize(long newSize) {
        if (newSize < size) {
            Arrays.fill(bytes, (int) newSize, size, (byte) 0);
        } else {
            ensureCapacity(newSize);
        }
        size = (int) newSize;
    }

    private void ensureCapacity(long needed) {
        if (needed > bytes.length) {
            long grown = Math.max(needed, Math.min(MAX_SIZE, Math.max(64, (long) bytes.length * 2)));
            bytes = Arrays.copyOf(bytes, (int) grown);
        }
    }
}
