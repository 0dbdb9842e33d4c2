package dev.lockstep.uring;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;

/**
 * A ring's small buffered writes, made at once on the owning thread with {@code pwrite} instead of through the
 * ring ({@link UringRing#stage}), their completions kept here until the next {@code enter} delivers them
 * ({@link EnterLoop}, beside the offloaded calls' and the CQEs) like any other. Kept in two arrays that grow to
 * the most writes made between two enters and are reused, so a steady stream of writes allocates nothing here.
 *
 * <h2>Why</h2>
 * io_uring cannot issue a buffered write on ext4 (or tmpfs) without the chance of blocking, so it hands every one
 * to an io-wq kernel thread: a small append costs a switch to that thread, a completion posted from it, and a
 * sleep and wake-up of the worker that waits for it; {@code pwritev2(RWF_NOWAIT)} on a buffered ext4 file answers
 * {@code EOPNOTSUPP}, so asking without waiting first does not avoid the hop. A synchronous {@code pwrite} of a few
 * KiB into the page cache takes microseconds: what a single-threaded server that writes its own log does (Redis's
 * append-only file).
 *
 * <h2>When the worker may block</h2>
 * A buffered write can wait: for the kernel's dirty-page throttling once the machine's dirty limit is passed, for
 * memory reclaim, for a page under writeback, for the file system's journal, or for another writer of the same
 * file. While it waits, every fiber of the worker waits with it: that is the price, and why only small writes
 * ({@code length <= maxBytes}) of regular files opened without {@code O_DIRECT}, {@code O_DSYNC} or {@code O_SYNC}
 * and with no per-write flags ({@code RWF_DSYNC}, {@code RWF_DONTCACHE}) are made here. How the file was opened
 * is the submitter's word ({@link Submission#BUFFERED_FILE}, which the engine sets for blobs opened through the
 * page cache), so a write this does not take costs no system call; an unmarked write goes to the ring. Those waits are the ones a
 * process writing faster than its disk meets anyway (io-wq would wait the same, only on another thread), and the
 * worker's fibers then wait for their own writes in any case. A deployment where a worker's other fibers must never
 * wait behind a write (latency-bound network fibers sharing a worker with bulk appends) turns it off: system
 * property {@value #MAX_BYTES_PROPERTY}{@code =0}, read when a ring opens.
 *
 * <h2>What a fiber can observe</h2>
 * Nothing outside the ring's contract: a write's completion still arrives from a later {@code enter}, never from
 * {@code stage}; unlinked ring requests complete in any order, so a write that completes before requests staged
 * earlier is one order io_uring may also choose; the bytes are in the page cache before the completion is
 * delivered, so a sync issued after it covers them as it covers a ring write's. The simulator's ring needs no
 * change.
 *
 * <p>Threads: the owning ring's thread only, from {@link UringRing#stage} and {@link UringRing#enter}.
 */
final class InlineWrite {
    /** The system property: the largest write made inline, in bytes; 0 turns inline writes off. */
    static final String MAX_BYTES_PROPERTY = "lockstep.uring.inlineWriteBytes";
    /** The default bound: a copy of up to 64 KiB into the page cache. */
    static final int DEFAULT_MAX_BYTES = 64 * 1024;
    /** What {@link #write} returns for a submission it did not make: the ring takes it. */
    static final long NOT_INLINE = Long.MIN_VALUE;

    /** How many times a write interrupted by a signal ({@code EINTR}) is made again before its result stands. */
    static final int EINTR_RETRIES = 8;

    private final int maxBytes;
    private final SystemWrite system;
    /** Completions of the writes made since the last {@link #deliver}, in the order made. */
    private long[] userData = new long[8];
    private int[] results = new int[8];
    private int pending;
    private long made;

    /**
     * One {@code pwrite} system call as the kernel answers it, without a retry: the bytes written or {@code -errno}.
     * A ring's calls the kernel (the constructor that takes the call state); a test gives one that answers as it is
     * told, since an {@code EINTR} cannot be provoked on a real file: the page-cache copy of a local file system is
     * not interrupted by signals.
     */
    @FunctionalInterface
    interface SystemWrite {
        long pwrite(int fd, long address, int length, long offset);
    }

    /**
     * @param maxBytes the largest write made here; 0 for none
     */
    InlineWrite(MemorySegment callState, int maxBytes) {
        this(maxBytes, (fd, address, length, offset) -> pwrite(callState, fd, address, length, offset));
    }

    /**
     * @param maxBytes the largest write made here; 0 for none
     * @param system the {@code pwrite} system call
     */
    InlineWrite(int maxBytes, SystemWrite system) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException(MAX_BYTES_PROPERTY + " must be 0 (off) or a positive byte count, was "
                    + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.system = system;
    }

    /**
     * The bound from the system property {@value #MAX_BYTES_PROPERTY}, {@value #DEFAULT_MAX_BYTES} without it.
     *
     * @throws IllegalArgumentException naming the value if it is not a byte count
     */
    static int configuredMaxBytes() {
        String value = System.getProperty(MAX_BYTES_PROPERTY);
        if (value == null) {
            return DEFAULT_MAX_BYTES;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(MAX_BYTES_PROPERTY + " must be 0 (off) or a positive byte count, was '"
                    + value + "'", notANumber);
        }
    }

    /** The bound: writes of at most this many bytes are made here. */
    int maxBytes() {
        return maxBytes;
    }

    /** The writes made here since the ring opened. */
    long made() {
        return made;
    }

    /**
     * Makes {@code submission} now if it is a small write marked {@link Submission#BUFFERED_FILE}, keeping its completion for
     * the next {@link #deliver}.
     *
     * @return true if made; false if the ring is to make it
     */
    boolean tryWrite(Submission submission) {
        long result = write(submission);
        if (result == NOT_INLINE) {
            return false;
        }
        if (pending == userData.length) {
            userData = java.util.Arrays.copyOf(userData, pending * 2);
            results = java.util.Arrays.copyOf(results, pending * 2);
        }
        userData[pending] = submission.userData;
        results[pending] = (int) result;
        pending++;
        made++;
        return true;
    }

    /**
     * Delivers the kept completions to {@code sink}, in the order the writes were made. A completion that stages
     * a small write adds one more, delivered in this same call. If {@code sink} throws, the completion it was
     * given counts as delivered and is never given again; those after it wait for the next call, in order.
     *
     * @return how many were delivered
     */
    int deliver(CompletionSink sink) {
        int delivered = 0;
        try {
            while (delivered < pending) {
                int at = delivered++;
                sink.complete(userData[at], results[at], 0);
            }
        } finally {
            // The fields are read again here: a write staged by the sink may have grown the arrays.
            int left = pending - delivered;
            if (left > 0) {
                System.arraycopy(userData, delivered, userData, 0, left);
                System.arraycopy(results, delivered, results, 0, left);
            }
            pending = left;
        }
        return delivered;
    }

    /**
     * Makes {@code submission} now if it is a small write marked {@link Submission#BUFFERED_FILE}, without keeping its
     * completion ({@link #tryWrite} keeps it).
     *
     * @return the bytes written or {@code -errno}, as the ring's completion would carry it; {@link #NOT_INLINE} if
     *     the ring is to make it
     */
    long write(Submission submission) {
        if (submission.opcode != Opcode.WRITE || submission.length > maxBytes || submission.rwFlags != 0
                || (submission.flags & Submission.BUFFERED_FILE) == 0) {
            return NOT_INLINE;
        }
        int fd = submission.fd;
        long address = submission.buffer.address();
        // Made again after EINTR, up to EINTR_RETRIES times: a signal before any byte is copied leaves nothing
        // written, and a positioned write made twice writes the same bytes at the same place.
        long result = -Libc.EINTR;
        for (int attempt = 0; attempt <= EINTR_RETRIES && result == -Libc.EINTR; attempt++) {
            result = system.pwrite(fd, address, submission.length, submission.offset);
        }
        return result;
    }

    /**
     * One {@code pwrite}, without errno first as {@link PageCacheRead} reads (a captured call makes a slice of the
     * call state per write that only escape analysis removes; a pwrite that failed wrote nothing, so the same call
     * again, capturing errno, reports the failure or, if it passes meanwhile, makes the write).
     *
     * @return the bytes written or {@code -errno}
     */
    private static long pwrite(MemorySegment callState, int fd, long address, int length, long offset) {
        long result = Libc.syscallUncaptured(Libc.SYS_PWRITE64, fd, address, length, offset, 0, 0);
        if (result == -1) {
            result = Libc.syscall(callState, Libc.SYS_PWRITE64, fd, address, length, offset, 0, 0);
        }
        return result;
    }
}
