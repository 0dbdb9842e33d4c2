package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.BitSet;

/**
 * A ring's receive buffers that the kernel selects when data arrives: a provided buffer ring
 * ({@code IORING_REGISTER_PBUF_RING}, Linux 5.19+) of {@link #count()} buffers of {@link #bufferBytes()} each, in
 * buffer group {@value #GROUP}. A receive staged with {@code IOSQE_BUFFER_SELECT} holds no memory while it waits;
 * its completion names the buffer the kernel filled ({@code IORING_CQE_F_BUFFER}, the id in the upper 16 bits of
 * the CQE's flags), whose bytes the receive copies out before it gives the buffer back ({@link #give}). With every
 * buffer out, a receive that finds data completes with {@code -ENOBUFS} and takes nothing from the socket.
 *
 * <p>Memory: the ring of descriptors and the buffers are anonymous private mappings, so only the pages the kernel
 * has written to are resident: {@code count × bufferBytes} at most per ring, however many receives wait. They are
 * not the ring arena's: {@link #unmap} releases them after a drained close, when no receive can select a buffer
 * any more; a ring abandoned with receives in flight leaves them mapped, as the kernel may still write them while
 * its teardown runs.
 *
 * <p>Threads: the owning ring's thread only (its service turns and its fibers' inline turns), as every
 * completion is delivered there. The tail is published to the kernel with a release store, as liburing's
 * {@code io_uring_buf_ring_advance} does, so the kernel sees a descriptor's fields before the tail that covers it.
 */
final class ProvidedBuffers {
    /** The buffer group id receives name ({@code sqe->buf_group}). */
    static final int GROUP = 0;
    /** {@code IOSQE_BUFFER_SELECT}, in the SQE's flags byte. */
    static final byte SQE_BUFFER_SELECT = 1 << 5;

    private static final int REGISTER_PBUF_RING = 22;
    private static final int CQE_BUFFER_SHIFT = 16;
    /** {@code struct io_uring_buf}: addr (u64), len (u32), bid (u16), resv (u16; the ring's tail in entry 0). */
    private static final long DESCRIPTOR_BYTES = 16;
    private static final long TAIL_OFFSET = 14;
    /** {@code struct io_uring_buf_reg}: ring_addr, ring_entries, bgid, flags, resv[3]. */
    private static final long REGISTRATION_BYTES = 40;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final long PAGE = 4096;
    private static final VarHandle SHARED_SHORT = JAVA_SHORT.varHandle();

    private final int count;
    private final int bufferBytes;
    private final MemorySegment descriptors;
    private final MemorySegment buffers;
    /** The next tail to publish (16 bits wrap, as the kernel's). Owner only. */
    private int tail;
    /** Buffers the kernel filled and not yet given back, by id. Owner only; read by tests. */
    private final BitSet lent;
    /** Buffers taken by receives so far. Owner only; read by tests. */
    private long takes;
    /** Receives that found every buffer out ({@code -ENOBUFS}). Owner only; read by tests. */
    private long exhaustions;

    private ProvidedBuffers(int count, int bufferBytes, MemorySegment descriptors, MemorySegment buffers) {
        this.count = count;
        this.bufferBytes = bufferBytes;
        this.descriptors = descriptors;
        this.buffers = buffers;
        this.lent = new BitSet(count);
        for (int id = 0; id < count; id++) {
            add(id);
        }
        SHARED_SHORT.setRelease(descriptors, TAIL_OFFSET, (short) tail);
    }

    /**
     * Maps {@code count} buffers and registers them with the ring, or returns null where the kernel has no provided
     * buffer rings: it refuses the registration with {@code EINVAL}, before Linux 5.19. The buffers are unmapped at
     * once when the kernel refuses them; once registered, they are the caller's to {@link #unmap}.
     *
     * @param arena the ring's arena, for the registration argument only
     * @param callState where {@code errno} is captured
     * @param ringFd the ring
     * @param count buffers, a power of two in {@code [1, 32768]}
     * @param bufferBytes bytes each, positive
     * @param subject the ring, for messages
     * @return the buffers, registered, or null
     * @throws KernelException naming {@code mmap} or {@code io_uring_register} and the errno if the mapping or the
     *     registration fails otherwise
     */
    static ProvidedBuffers register(Arena arena, MemorySegment callState, int ringFd, int count, int bufferBytes,
                                    String subject) {
        if (count < 1 || count > 32768 || Integer.bitCount(count) != 1 || bufferBytes < 1) {
            throw new IllegalArgumentException("provided buffers must be a power of two in [1, 32768] of a positive"
                    + " size, were " + count + " of " + bufferBytes + " bytes");
        }
        long descriptorBytes = Math.max(PAGE, count * DESCRIPTOR_BYTES);
        long bufferSpace = (long) count * bufferBytes;
        MemorySegment descriptors = map(callState, descriptorBytes, subject);
        MemorySegment buffers;
        try {
            buffers = map(callState, bufferSpace, subject);
        } catch (RuntimeException | Error failure) {
            Libc.munmapQuietly(descriptors, descriptorBytes);
            throw failure;
        }
        ProvidedBuffers provided = new ProvidedBuffers(count, bufferBytes, descriptors, buffers);
        MemorySegment registration = arena.allocate(REGISTRATION_BYTES, 8);
        registration.set(JAVA_LONG, 0, descriptors.address());
        registration.set(JAVA_INT, 8, count);
        registration.set(JAVA_SHORT, 12, (short) GROUP);
        long result = Libc.syscall(callState, Libc.SYS_IO_URING_REGISTER, ringFd, REGISTER_PBUF_RING,
                registration.address(), 1, 0, 0);
        if (result >= 0) {
            return provided;
        }
        provided.unmap();
        if (result == -Errno.EINVAL) {
            return null;
        }
        throw new KernelException((int) -result, "io_uring_register",
                subject + ": IORING_REGISTER_PBUF_RING of " + count + " buffers of " + bufferBytes + " bytes");
    }

    @SuppressWarnings("restricted")
    private static MemorySegment map(MemorySegment callState, long bytes, String subject) {
        return Libc.mmap(callState, bytes, Libc.PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0, subject)
                .reinterpret(bytes);
    }

    /**
     * Unmaps the descriptors and the buffers. Only once no receive can select a buffer: the kernel refused them, or
     * the ring was closed with every request completed.
     */
    void unmap() {
        Libc.munmapQuietly(descriptors, descriptors.byteSize());
        Libc.munmapQuietly(buffers, buffers.byteSize());
    }

    /** Writes buffer {@code id}'s descriptor at the tail, not yet published. */
    private void add(int id) {
        long at = (tail & (count - 1)) * DESCRIPTOR_BYTES;
        descriptors.set(JAVA_LONG, at, buffers.address() + (long) id * bufferBytes);
        descriptors.set(JAVA_INT, at + 8, bufferBytes);
        // Not the descriptor's last two bytes: in entry 0 they are the ring's tail.
        descriptors.set(JAVA_SHORT, at + 12, (short) id);
        tail++;
    }

    /**
     * The buffer a completion's flags name, now lent to its receive until {@link #give}.
     *
     * @param completionFlags flags with {@code IORING_CQE_F_BUFFER}
     * @return the buffer, {@link #bufferBytes()} long
     * @throws IllegalArgumentException if the id is not one of these buffers, or that buffer is lent already
     */
    MemorySegment take(int completionFlags) {
        int id = idOf(completionFlags);
        if (lent.get(id)) {
            throw new IllegalArgumentException("buffer " + id + " (completion flags 0x"
                    + Integer.toHexString(completionFlags) + ") is lent already");
        }
        lent.set(id);
        takes++;
        return buffers.asSlice((long) id * bufferBytes, bufferBytes);
    }

    /**
     * Gives a buffer back: the kernel may select it for the next receive.
     *
     * @param completionFlags the flags of the completion that lent it
     * @throws IllegalArgumentException if the id is not one of these buffers, or that buffer is not lent
     */
    void give(int completionFlags) {
        int id = idOf(completionFlags);
        if (!lent.get(id)) {
            throw new IllegalArgumentException("buffer " + id + " (completion flags 0x"
                    + Integer.toHexString(completionFlags) + ") is not lent: given back twice or never taken");
        }
        lent.clear(id);
        add(id);
        SHARED_SHORT.setRelease(descriptors, TAIL_OFFSET, (short) tail);
    }

    /** A receive found every buffer out. */
    void exhausted() {
        exhaustions++;
    }

    private int idOf(int completionFlags) {
        int id = completionFlags >>> CQE_BUFFER_SHIFT;
        if (id >= count) {
            throw new IllegalArgumentException("buffer id " + id + " (completion flags 0x"
                    + Integer.toHexString(completionFlags) + ") is not one of the ring's " + count + " buffers");
        }
        return id;
    }

    int count() {
        return count;
    }

    int bufferBytes() {
        return bufferBytes;
    }

    /** Buffers the kernel filled whose receives have not given them back yet. */
    int lent() {
        return lent.cardinality();
    }

    /** Buffers taken by receives so far: receives that completed through a selected buffer. */
    long takes() {
        return takes;
    }

    /** Receives that completed with {@code -ENOBUFS} so far. */
    long exhaustions() {
        return exhaustions;
    }
}
