package dev.lockstep.sim.os;

import dev.lockstep.sim.audit.RememberedBlocks;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes of one file image, sparse: fixed-size pages in offset order and a size. Pages never written read as
 * zeros, so extending a file or writing far past its end exposes zeros and costs no memory, as a sparse file on
 * Linux does. Bytes of a page past the size are always zero, so growing the size exposes zeros.
 *
 * <p>A page below 1 GiB may be shared: an array that is also another image's page or a journal entry's data
 * ({@link #writeShared}, {@link #copy}). Nothing changes a shared array; an image that writes into a shared page
 * first takes a copy of it, so a 4 KiB write is one array in the page cache, the journal and the disk image.
 */
final class ByteImage {
    /**
     * The largest file the simulator holds, as ext4's limit for 4 KiB blocks ({@code s_maxbytes}): 2^32 - 1
     * blocks, 16 TiB less one block. Linux refuses an {@code ftruncate} past it and a {@code pwrite} starting at
     * it with {@code EFBIG}, and cuts a {@code pwrite} that crosses it short.
     */
    static final long MAX_SIZE = (16L << 40) - 4096;
    /** The largest image {@link #toArray()} can return whole. */
    static final long MAX_ARRAY_SIZE = Integer.MAX_VALUE - 8;
    private static final int PAGE_SHIFT = 12;
    private static final int PAGE_SIZE = 1 << PAGE_SHIFT;

    /**
     * Pages below this index live in {@link #low}, an array indexed by page (grown by doubling as writes reach
     * further): the common case, a file of up to 1 GiB, looked up without boxing or a tree walk. Pages at or past
     * it — a sparse write far out — live in {@link #high}.
     */
    private static final long DENSE_PAGES = 1L << 18;

    /** Page index to its bytes, for indexes below {@link #DENSE_PAGES}; null entries were never written. */
    private byte[][] low;
    /** Whether {@code low[i]} is shared, so must be copied before it is written (see the class doc). */
    private boolean[] lowShared;
    /** Page index to its bytes, for indexes from {@link #DENSE_PAGES} on; sorted, so every walk is in order. */
    private final TreeMap<Long, byte[]> high;
    private long size;

    ByteImage() {
        this(new byte[0][], new boolean[0], new TreeMap<>(), 0);
    }

    private ByteImage(byte[][] low, boolean[] lowShared, TreeMap<Long, byte[]> high, long size) {
        this.low = low;
        this.lowShared = lowShared;
        this.high = high;
        this.size = size;
    }

    long size() {
        return size;
    }

    /** An independent image with the same bytes: the pages below 1 GiB are shared by both until either writes. */
    ByteImage copy() {
        for (int i = 0; i < low.length; i++) {
            if (low[i] != null) {
                lowShared[i] = true;
            }
        }
        TreeMap<Long, byte[]> highCopy = new TreeMap<>();
        for (Map.Entry<Long, byte[]> page : high.entrySet()) {
            highCopy.put(page.getKey(), page.getValue().clone());
        }
        return new ByteImage(low.clone(), lowShared.clone(), highCopy, size);
    }

    /** The page at {@code index}, or null if it was never written (or was cut away). */
    private byte[] page(long index) {
        if (index < DENSE_PAGES) {
            return index < low.length ? low[(int) index] : null;
        }
        return high.get(index);
    }

    /** The page at {@code index}, made (zeroed) if missing and copied if shared: this image's own to write. */
    private byte[] pageForWrite(long index) {
        if (index >= DENSE_PAGES) {
            return high.computeIfAbsent(index, ignored -> new byte[PAGE_SIZE]);
        }
        reach(index);
        int at = (int) index;
        byte[] page = low[at];
        if (page == null) {
            page = new byte[PAGE_SIZE];
            low[at] = page;
        } else if (lowShared[at]) {
            page = page.clone();
            low[at] = page;
            lowShared[at] = false;
        }
        return page;
    }

    /** Grows {@link #low} to hold {@code index}, below {@link #DENSE_PAGES}. */
    private void reach(long index) {
        if (index >= low.length) {
            int length = (int) Math.min(DENSE_PAGES, Math.max(index + 1, low.length * 2L));
            low = Arrays.copyOf(low, length);
            lowShared = Arrays.copyOf(lowShared, length);
        }
    }

    /** Drops every page from {@code index} on. */
    private void dropFrom(long index) {
        high.tailMap(Math.max(index, DENSE_PAGES), true).clear();
        if (index < low.length) {
            Arrays.fill(low, (int) index, low.length, null);
            Arrays.fill(lowShared, (int) index, lowShared.length, false);
        }
    }

    /**
     * The whole image as one array.
     *
     * @throws IllegalStateException for an image over {@link #MAX_ARRAY_SIZE}
     */
    byte[] toArray() {
        if (size > MAX_ARRAY_SIZE) {
            throw new IllegalStateException("a simulated file of " + size + " bytes does not fit one array");
        }
        byte[] whole = new byte[(int) size];
        read(0, whole, 0, whole.length);
        return whole;
    }

    /** Copies up to {@code length} bytes from {@code offset}; returns how many (0 at or past the end). */
    int read(long offset, byte[] destination, int destinationOffset, int length) {
        if (offset >= size) {
            return 0;
        }
        int count = (int) Math.min(length, size - offset);
        int done = 0;
        while (done < count) {
            long at = offset + done;
            int inPage = (int) (at & (PAGE_SIZE - 1));
            int chunk = Math.min(count - done, PAGE_SIZE - inPage);
            byte[] page = page(at >>> PAGE_SHIFT);
            if (page == null) {
                Arrays.fill(destination, destinationOffset + done, destinationOffset + done + chunk, (byte) 0);
            } else {
                System.arraycopy(page, inPage, destination, destinationOffset + done, chunk);
            }
            done += chunk;
        }
        return count;
    }

    /** Copies up to {@code length} bytes from {@code offset} into memory; returns how many (0 at or past the end). */
    int read(long offset, MemorySegment destination, int length) {
        if (offset >= size) {
            return 0;
        }
        int count = (int) Math.min(length, size - offset);
        int done = 0;
        while (done < count) {
            long at = offset + done;
            int inPage = (int) (at & (PAGE_SIZE - 1));
            int chunk = Math.min(count - done, PAGE_SIZE - inPage);
            byte[] page = page(at >>> PAGE_SHIFT);
            if (page == null) {
                destination.asSlice(done, chunk).fill((byte) 0);
            } else {
                MemorySegment.copy(page, inPage, destination, ValueLayout.JAVA_BYTE, done, chunk);
            }
            done += chunk;
        }
        return count;
    }

    /** Writes {@code length} bytes at {@code offset}, growing the size; a gap reads as zeros. */
    void write(long offset, byte[] source, int sourceOffset, int length) {
        int done = 0;
        while (done < length) {
            long at = offset + done;
            int inPage = (int) (at & (PAGE_SIZE - 1));
            int chunk = Math.min(length - done, PAGE_SIZE - inPage);
            byte[] page = pageForWrite(at >>> PAGE_SHIFT);
            System.arraycopy(source, sourceOffset + done, page, inPage, chunk);
            done += chunk;
        }
        size = Math.max(size, offset + length);
    }

    /**
     * Writes all of {@code data} at {@code offset}, as {@link #write} does, keeping {@code data} itself as the page
     * when it is exactly one page at a page boundary below 1 GiB (else copying it).
     *
     * @param data bytes that nobody changes from now on: the image may share them (see the class doc)
     */
    void writeShared(long offset, byte[] data) {
        long index = offset >>> PAGE_SHIFT;
        if (data.length != PAGE_SIZE || (offset & (PAGE_SIZE - 1)) != 0 || index >= DENSE_PAGES) {
            write(offset, data, 0, data.length);
            return;
        }
        reach(index);
        low[(int) index] = data;
        lowShared[(int) index] = true;
        size = Math.max(size, offset + PAGE_SIZE);
    }

    /**
     * The array holding exactly the bytes at {@code [offset, offset + length)} if it is a shared page (see the class
     * doc), which nothing changes: for the audit of a read that copied them, which may then look the bytes up by
     * the array ({@link RememberedBlocks#digestOfUnchanging}).
     *
     * @return the page, or null if those bytes are not exactly one whole shared page within the size
     */
    byte[] sharedPage(long offset, int length) {
        if (length != PAGE_SIZE || (offset & (PAGE_SIZE - 1)) != 0 || offset < 0 || offset > size - PAGE_SIZE) {
            return null;
        }
        long index = offset >>> PAGE_SHIFT;
        return index < low.length && lowShared[(int) index] ? low[(int) index] : null;
    }

    /** Sets the size: truncating drops or zeroes the cut bytes so a later extension reads zeros. */
    void resize(long newSize) {
        if (newSize < size) {
            long firstCutPage = (newSize + PAGE_SIZE - 1) >>> PAGE_SHIFT;
            dropFrom(firstCutPage);
            int inPage = (int) (newSize & (PAGE_SIZE - 1));
            if (inPage != 0 && page(newSize >>> PAGE_SHIFT) != null) {
                Arrays.fill(pageForWrite(newSize >>> PAGE_SHIFT), inPage, PAGE_SIZE, (byte) 0);
            }
        }
        size = newSize;
    }
}
