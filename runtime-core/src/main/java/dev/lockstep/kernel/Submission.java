package dev.lockstep.kernel;

import java.lang.foreign.MemorySegment;

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
    public String requestedFrom;

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
        rwFlags = 0;
        flags = 0;
        userData = 0;
        target = 0;
        call = null;
        requestedFrom = null;
        return this;
    }

    @Override
    public String toString() {
        return opcode + "(fd=" + fd + ", length=" + length + ", offset=" + offset + ", userData=0x"
                + Long.toHexString(userData) + ")";
    }
}
