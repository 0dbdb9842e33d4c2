package dev.lockstep.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One request for a {@link Ring}: the Java form of an SQE. A plain mutable holder the engine fills and the
 * ring copies at {@link Ring#stage}; the ring keeps no reference to it afterwards. The buffer, however, stays
 * referenced by the kernel until the request's completion is delivered: its owner must not free it before.
 */
public final class Submission {
    /** {@link #flags} of an {@link Opcode#FSYNC}: sync data only ({@code fdatasync}). */
    public static final int FSYNC_DATASYNC = 1;
    /** {@link #rwFlags} of a write: {@code RWF_DSYNC}, the written data is durable on completion. */
    public static final int RWF_DSYNC = 0x2;
    /** {@link #rwFlags} of a read or write: {@code RWF_DONTCACHE}, drop the pages after the I/O. */
    public static final int RWF_DONTCACHE = 0x80;

    /**
     * {@link #flags} of an {@link Opcode#RECV}: no {@link #buffer}; the ring picks one of its own receive buffers
     * when data arrives ({@link Ring#selectedBufferBytes()}, which a ring that selects none reports as 0, and which
     * bounds {@link #length}), and names it in the completion's flags ({@link Ring#COMPLETION_BUFFER}). A
     * completion of {@code -ENOBUFS} means every buffer was out: nothing was received.
     */
    public static final int SELECT_BUFFER = 0x1;

    /**
     * {@link #flags} of an {@link Opcode#WRITE}: the fd is a regular file opened through the page cache, without
     * {@code O_DIRECT}, {@code O_DSYNC} or {@code O_SYNC}, as the engine opens blobs without
     * {@code OpenOptions.DIRECT}. A hint: a ring may then make a small write at {@link Ring#stage} (runtime-uring's
     * inline writes) without asking the kernel how the file was opened; a ring that has no use for it ignores it,
     * and the simulator leaves it out of its audit, so setting it changes no seed's digest.
     */
    public static final int BUFFERED_FILE = 0x1;

    /** {@link #fd} of a path opcode: the path is absolute or relative to the working directory. */
    public static final int AT_FDCWD = -100;
    /** {@link #flags} of an {@link Opcode#UNLINKAT}: remove an empty directory ({@code rmdir}). */
    public static final int AT_REMOVEDIR = 0x200;

    /** What to do. */
    public Opcode opcode = Opcode.NOP;
    /** The file or socket. */
    public int fd = -1;
    /** The data: read into, written from, or the sockaddr of a connect. Native memory for a real kernel. */
    public MemorySegment buffer = MemorySegment.NULL;
    /** Bytes of {@link #buffer} to use. */
    public int length;
    /** File offset of a read or write. */
    public long offset;
    /** Bytes of the range an {@link Opcode#FALLOCATE} allocates: a long, as one preallocation may pass 2 GiB. */
    public long rangeLength;
    /** Per-request read/write flags ({@code RWF_*}). */
    public int rwFlags;
    /** Opcode-specific flags. */
    public int flags;
    /** Returned unchanged in the completion. */
    public long userData;
    /** The user data of the request an {@link Opcode#ASYNC_CANCEL} cancels. */
    public long target;
    /** What a {@link Opcode#BLOCKING_CALL} runs; null otherwise. */
    public BlockingCall call;
    /**
     * The application line that asked for a request that creates a resource (an {@link Opcode#OPENAT}, an
     * {@link Opcode#ACCEPT}), for a
     * kernel that names where resources come from ({@link Kernel#callerSite()}); null otherwise. Diagnostics
     * only: never part of what the request does.
     */
    public CallSite requestedFrom;

    /**
     * Resets every field to its default, for reuse.
     *
     * @return this
     */
    public Submission clear() {
        opcode = Opcode.NOP;
        fd = -1;
        buffer = MemorySegment.NULL;
        length = 0;
        offset = 0;
        rangeLength = 0;
        rwFlags = 0;
        flags = 0;
        userData = 0;
        target = 0;
        call = null;
        requestedFrom = null;
        return this;
    }

    /**
     * {@link #validate()}, and for a ring whose selected receive buffers are {@code selectedBufferBytes} long (0
     * for none, {@link Ring#selectedBufferBytes()}): a receive into a buffer the ring selects needs such buffers
     * and must fit one. What every ring's {@link Ring#stage} checks, so that both runtimes refuse alike.
     *
     * @param selectedBufferBytes bytes of each of the ring's selected receive buffers, 0 for none
     * @throws NullPointerException if {@link #opcode} is null
     * @throws IllegalArgumentException naming the bad value and the submission
     */
    public void validateFor(int selectedBufferBytes) {
        validate();
        if (opcode != Opcode.RECV || (flags & SELECT_BUFFER) == 0) {
            return;
        }
        if (selectedBufferBytes <= 0) {
            throw new IllegalArgumentException("the ring selects no receive buffers: " + this);
        }
        if (length > selectedBufferBytes) {
            throw new IllegalArgumentException("a receive of " + length + " bytes does not fit the ring's "
                    + selectedBufferBytes + "-byte selected buffers: " + this);
        }
    }

    /**
     * Checks what every ring refuses before it stages anything, so both runtimes refuse the same submissions with
     * the same message: a ring calls this first in {@link Ring#stage}. The rules are the ones a real kernel needs
     * to be safe with the submission's memory.
     *
     * <ul>
     *   <li>an opcode that uses {@link #buffer} ({@code READ}, {@code WRITE}, {@code RECV}, {@code SEND},
     *       {@code CONNECT}, the path opcodes and {@code STATX}) needs native memory at a non-zero address, and
     *       {@code 0 <= length <= buffer.byteSize()};</li>
     *   <li>a {@code READ} or {@code WRITE} needs {@code offset >= 0} (io_uring reads -1 as "the file position",
     *       which a positioned request must never use), and so does an {@code FTRUNCATE} (its new length) and a
     *       {@code FALLOCATE}, which also needs {@code rangeLength > 0};</li>
     *   <li>a path opcode's path ends in a NUL byte right after its {@code length} bytes; a {@code RENAMEAT}'s new
     *       path starts at {@code length + 1} ({@link #offset}) and ends in a NUL byte within the buffer;</li>
     *   <li>a {@code STATX} needs at least {@link Statx#BYTES} bytes.</li>
     * </ul>
     *
     * @throws NullPointerException if {@link #opcode} is null
     * @throws IllegalArgumentException naming the bad value and the submission
     */
    public void validate() {
        Opcode checked = java.util.Objects.requireNonNull(opcode, "submission.opcode");
        if ((checked == Opcode.FTRUNCATE || checked == Opcode.FALLOCATE) && offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, was " + offset + ": " + this);
        }
        if (checked == Opcode.FALLOCATE && rangeLength <= 0) {
            throw new IllegalArgumentException("a fallocate's range length must be positive, was " + rangeLength
                    + ": " + this);
        }
        boolean usesBuffer = switch (checked) {
            case READ, WRITE, RECV, SEND, CONNECT, OPENAT, MKDIRAT, UNLINKAT, RENAMEAT, STATX -> true;
            default -> false;
        };
        if (!usesBuffer) {
            return;
        }
        if (checked == Opcode.RECV && (flags & SELECT_BUFFER) != 0) {
            if (buffer != null && buffer.address() != 0) {
                throw new IllegalArgumentException("a receive into a buffer the ring selects has no buffer of its"
                        + " own, was " + buffer + ": " + this);
            }
            if (length < 1) {
                throw new IllegalArgumentException("a receive into a buffer the ring selects needs a positive"
                        + " length, was " + length + ": " + this);
            }
            return;
        }
        if (buffer == null || !buffer.isNative() || buffer.address() == 0) {
            throw new IllegalArgumentException("the kernel needs a native buffer, was " + buffer + ": " + this);
        }
        if (length < 0 || length > buffer.byteSize()) {
            throw new IllegalArgumentException("length " + length + " does not fit the buffer of "
                    + buffer.byteSize() + " bytes: " + this);
        }
        if ((checked == Opcode.READ || checked == Opcode.WRITE) && offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, was " + offset + ": " + this);
        }
        if ((checked == Opcode.OPENAT || checked == Opcode.MKDIRAT || checked == Opcode.UNLINKAT
                || checked == Opcode.RENAMEAT)
                && (buffer.byteSize() <= length || buffer.get(ValueLayout.JAVA_BYTE, length) != 0)) {
            throw new IllegalArgumentException("a path must end in a NUL byte after its " + length + " bytes: "
                    + this);
        }
        if (checked == Opcode.RENAMEAT && (offset != length + 1L || secondPathLength() < 0)) {
            throw new IllegalArgumentException("a rename's new path must start at " + (length + 1L)
                    + " and end in a NUL byte within the buffer: " + this);
        }
        if (checked == Opcode.STATX && length < Statx.BYTES) {
            throw new IllegalArgumentException("a statx needs " + Statx.BYTES + " bytes, was " + length + ": "
                    + this);
        }
    }

    /**
     * The bytes of a {@code RENAMEAT}'s new path, which starts at {@link #offset} in {@link #buffer}, before its
     * NUL.
     *
     * @return the length, or -1 if {@link #offset} is negative or the buffer holds no NUL at or after it
     */
    public int secondPathLength() {
        return nulTerminatedLength(buffer, offset);
    }

    /**
     * The bytes of the string that starts at {@code start} in {@code buffer}, before its NUL.
     *
     * @param buffer the memory
     * @param start where the string starts
     * @return the length, or -1 if {@code start} is negative or no NUL follows it within the buffer
     */
    public static int nulTerminatedLength(MemorySegment buffer, long start) {
        if (start < 0) {
            return -1;
        }
        long size = buffer.byteSize();
        for (long at = start; at < size; at++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, at) == 0) {
                return (int) (at - start);
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return opcode + "(fd=" + fd + ", length=" + length + ", offset=" + offset + ", userData=0x"
                + Long.toHexString(userData) + ")";
    }
}
