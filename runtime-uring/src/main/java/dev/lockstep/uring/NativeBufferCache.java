package dev.lockstep.uring;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.lang.foreign.MemorySegment;

/**
 * One ring's cache of native buffers freed on its owner thread, kept for that thread's next allocation of the
 * same size class, so a request's buffer costs no {@code calloc} and {@code free} per operation. Sizes up to
 * {@link #LARGEST_CACHED_BYTES} are rounded up to a power of two (at least {@link #SMALLEST_CACHED_BYTES}), and
 * every buffer of a class is {@code calloc}ed at the class's whole capacity, on any thread, so that any of them
 * may be cached when it is freed on the owner thread.
 *
 * <p>Threads: {@link #allocate} and {@link #free} may be called on any thread, but touch the cache only when the
 * caller says it is the ring's owner and the ring is open ({@code cached}); every other call goes straight to
 * {@code calloc} or {@code free}. So the cache's arrays are the owner thread's alone and need no ordering.
 */
final class NativeBufferCache {
    static final int SMALLEST_CACHED_BYTES = 64;
    static final int LARGEST_CACHED_BYTES = 64 * 1024;
    /** What one size class holds besides its 64 buffers at most: 64 of 4 KiB, 4 of 64 KiB. */
    static final int CACHED_BYTES_PER_CLASS = 256 * 1024;

    /**
     * Addresses of {@code calloc}ed blocks of {@code SMALLEST_CACHED_BYTES << class} bytes, a stack per class.
     * Owner thread only.
     */
    private final long[][] cachedAddresses = newBufferCache();
    private final int[] cachedCount = new int[cachedAddresses.length];

    private static long[][] newBufferCache() {
        int classes = Long.numberOfTrailingZeros(LARGEST_CACHED_BYTES)
                - Long.numberOfTrailingZeros(SMALLEST_CACHED_BYTES) + 1;
        long[][] cache = new long[classes][];
        for (int sizeClass = 0; sizeClass < classes; sizeClass++) {
            cache[sizeClass] = new long[Math.min(64, CACHED_BYTES_PER_CLASS / (SMALLEST_CACHED_BYTES << sizeClass))];
        }
        return cache;
    }

    /**
     * Native, zeroed memory of {@code bytes}.
     *
     * @param bytes the size, {@code >= 0}
     * @param cached whether the caller is the owner thread of an open ring, so the cache may serve it
     * @return the memory
     * @throws KernelException {@code ENOMEM} naming the size if there is no memory
     */
    MemorySegment allocate(long bytes, boolean cached) {
        if (bytes > LARGEST_CACHED_BYTES) {
            return callocated(bytes, bytes);
        }
        int sizeClass = sizeClass(bytes);
        if (cached && cachedCount[sizeClass] > 0) {
            int count = --cachedCount[sizeClass];
            long address = cachedAddresses[sizeClass][count];
            MemorySegment memory = reinterpreted(address, bytes);
            memory.fill((byte) 0);
            return memory;
        }
        // Always the class's whole capacity, on every thread, so that free may cache any buffer of the class.
        return callocated(SMALLEST_CACHED_BYTES << sizeClass, bytes);
    }

    @SuppressWarnings("restricted") // an address this cache took from calloc, of at least bytes bytes
    private static MemorySegment reinterpreted(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    @SuppressWarnings("restricted") // calloc returns a bare pointer to at least capacity >= bytes bytes.
    private static MemorySegment callocated(long capacity, long bytes) {
        // calloc(1, 0) may return NULL; asking for at least one byte keeps NULL meaning "out of memory".
        MemorySegment memory = Libc.calloc(1, Math.max(1, capacity));
        if (memory.address() == 0) {
            throw new KernelException(Errno.ENOMEM, "calloc", bytes + " bytes");
        }
        return memory.reinterpret(bytes);
    }

    /** The cache class of a size up to {@link #LARGEST_CACHED_BYTES}: capacity {@code SMALLEST << class}. */
    private static int sizeClass(long bytes) {
        if (bytes <= SMALLEST_CACHED_BYTES) {
            return 0;
        }
        return 64 - Long.numberOfLeadingZeros(bytes - 1) - Long.numberOfTrailingZeros(SMALLEST_CACHED_BYTES);
    }

    /**
     * Frees memory from {@link #allocate} (of this or any ring's cache): back to the cache while its class holds
     * fewer than {@link #CACHED_BYTES_PER_CLASS} bytes and the caller may use the cache, else to {@code free}.
     *
     * @param segment native memory at a non-zero address
     * @param cached whether the caller is the owner thread of an open ring
     */
    void free(MemorySegment segment, boolean cached) {
        if (cached && segment.byteSize() <= LARGEST_CACHED_BYTES) {
            int sizeClass = sizeClass(segment.byteSize());
            int count = cachedCount[sizeClass];
            if (count < cachedAddresses[sizeClass].length) {
                cachedAddresses[sizeClass][count] = segment.address();
                cachedCount[sizeClass] = count + 1;
                return;
            }
        }
        Libc.free(segment);
    }

    /** Frees every cached buffer; on the owner thread, when the ring closes. */
    @SuppressWarnings("restricted") // addresses this cache took from calloc and nobody else holds
    void freeAll() {
        for (int sizeClass = 0; sizeClass < cachedCount.length; sizeClass++) {
            for (int index = 0; index < cachedCount[sizeClass]; index++) {
                Libc.free(MemorySegment.ofAddress(cachedAddresses[sizeClass][index]));
            }
            cachedCount[sizeClass] = 0;
        }
    }
}
