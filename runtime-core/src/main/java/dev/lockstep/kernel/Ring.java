package dev.lockstep.kernel;

import java.lang.foreign.MemorySegment;

/**
 * One worker's asynchronous queue to the kernel: stage submissions, then one {@link #enter} per loop turn
 * submits them, waits, and delivers completions.
 *
 * <h2>Threads</h2>
 * A ring is owned by one worker: every method but {@link #wake()} is called only by that worker (in the
 * simulator, which carries every worker on one thread, only while that worker is being serviced).
 * {@link #wake()} may be called from any thread.
 *
 * <h2>Capacity</h2>
 * {@link #stage} refuses only when the submission queue is full ({@link #entries()} staged and not yet
 * submitted). In flight, the engine keeps at most {@link #entries()} requests that end by themselves (storage)
 * and {@link #entries()} cancellations, but any number of requests that wait on a peer (receives, accepts, sends,
 * connects): see the engine's {@code SubmitQueues}. Completions may therefore outnumber the completion queue; a
 * ring keeps every one (io_uring's overflow backlog) and delivers it from a later {@link #enter}.
 */
public interface Ring extends AutoCloseable {

    /**
     * The number of submission entries; bounds the storage requests in flight (see the class doc).
     *
     * @return at least 1
     */
    int entries();

    /**
     * Copies a submission into the submission queue. A ring may instead perform the submission at once, during
     * this call, and still deliver its completion from a later {@link #enter}, never from here: runtime-uring makes
     * small buffered writes this way, which may block the calling worker while the kernel copies the bytes (or
     * throttles or waits for its journal). Either way the completion arrives as any other, in any order relative
     * to the completions of other unlinked submissions.
     *
     * @param submission the request
     * @return false if the submission queue is full: call {@link #enter} to submit, then stage again
     */
    boolean stage(Submission submission);

    /**
     * Submits every staged entry and delivers every available completion to {@code sink}. With
     * {@code wait}, first blocks until at least one completion is available, {@link #wake()} is called, or
     * {@code timeoutNanos} pass. Interrupted and transiently busy system calls are retried.
     *
     * @param wait whether to wait for a completion
     * @param timeoutNanos the longest wait; {@code Long.MAX_VALUE} for none
     * @param sink receives the completions
     * @return the number of completions delivered
     * @throws KernelException if the ring itself failed
     */
    int enter(boolean wait, long timeoutNanos, CompletionSink sink);

    /**
     * Reads what the page cache holds right now, without waiting for a device: {@code preadv2} with
     * {@code RWF_NOWAIT}, on the calling thread, outside the ring. The answer io_uring itself gets when it first
     * tries a buffered read inline, without the ring's round trip, so the engine asks here first for a read that
     * a buffered blob makes, and submits the read to the ring when this returns anything but every byte.
     *
     * <p>A ring that cannot (test doubles) keeps the default, which always says {@code -EAGAIN}: that only costs
     * the fast path, never a result, since the caller then reads through the ring as before. The simulator's ring
     * answers, as a system call of its kernel whose seed decides whether the pages are cached.
     *
     * @param fd an open fd the caller holds a reference to
     * @param buffer native memory the bytes go to
     * @param at where in {@code buffer}
     * @param length bytes, {@code 1 <= length <= buffer.byteSize() - at}
     * @param offset the file offset, {@code >= 0}
     * @return the bytes read (possibly fewer, 0 at the end of the file), or {@code -errno}: {@code -EAGAIN} if
     *     any of it is not cached, {@code -EOPNOTSUPP} if the file does not support it
     */
    default int readWithoutWaiting(int fd, MemorySegment buffer, long at, int length, long offset) {
        return -Errno.EAGAIN;
    }

    /**
     * The argument checks of {@link #readWithoutWaiting} that answers: one place, so every runtime refuses the same
     * arguments with the same message.
     *
     * @param buffer the buffer
     * @param at where in it
     * @param length bytes
     * @param offset the file offset
     * @throws IllegalArgumentException naming the read's length and place and the buffer, if the buffer is not
     *     native memory or the range does not fit it; naming the offset, if it is negative
     */
    static void checkReadWithoutWaiting(MemorySegment buffer, long at, int length, long offset) {
        if (!buffer.isNative() || buffer.address() == 0 || at < 0 || length < 1 || at > buffer.byteSize() - length) {
            throw new IllegalArgumentException("a read of " + length + " bytes at " + at + " does not fit "
                    + buffer);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, was " + offset);
        }
    }

    /**
     * Whether {@link #readWithoutWaiting} can ever return bytes: if not, the engine does not ask it.
     *
     * @return false unless the ring implements it
     */
    default boolean readsWithoutWaiting() {
        return false;
    }

    /**
     * {@link CompletionSink#complete} flags of a receive whose buffer the ring selected
     * ({@link Submission#SELECT_BUFFER}): {@code IORING_CQE_F_BUFFER}. The buffer's id is in the upper 16 bits.
     */
    int COMPLETION_BUFFER = 1;

    /**
     * Bytes of each receive buffer this ring selects itself when data arrives ({@link Submission#SELECT_BUFFER}),
     * so a receive that waits holds no buffer; 0 if it selects none (then a receive brings its own buffer).
     *
     * @return bytes per selected buffer, or 0
     */
    default int selectedBufferBytes() {
        return 0;
    }

    /**
     * The received bytes of a completion whose flags have {@link #COMPLETION_BUFFER}: the selected buffer, which
     * the completion's owner gives back with {@link #returnSelected} once it copied them out. Owner only.
     *
     * @param completionFlags the completion's flags
     * @return the buffer, of {@link #selectedBufferBytes()} bytes
     * @throws IllegalArgumentException if the flags name no selected buffer of this ring
     */
    default MemorySegment selectedBuffer(int completionFlags) {
        throw new IllegalArgumentException("this ring selects no receive buffers (completion flags 0x"
                + Integer.toHexString(completionFlags) + ")");
    }

    /**
     * Gives a selected buffer back to the ring for later receives. Owner only; exactly once per completion with
     * {@link #COMPLETION_BUFFER}, including one of a cancelled receive.
     *
     * @param completionFlags the completion's flags
     * @throws IllegalArgumentException if the flags name no buffer this ring lent
     */
    default void returnSelected(int completionFlags) {
        throw new IllegalArgumentException("this ring selects no receive buffers (completion flags 0x"
                + Integer.toHexString(completionFlags) + ")");
    }

    /**
     * A receive that asked for a selected buffer completed with {@code -ENOBUFS}: every buffer was out. For the
     * ring's count; the receive itself goes on with a buffer of its own. Owner only.
     */
    default void selectionExhausted() {
    }

    /**
     * How many times the completion queue overflowed into the kernel's backlog so far (io_uring's
     * {@code IORING_SQ_CQ_OVERFLOW}, which {@link #enter} drains), for metrics. Any thread: a recent value.
     *
     * @return the count; 0 for a ring without a completion queue of bounded size (the simulator's)
     */
    default long completionOverflows() {
        return 0;
    }

    /**
     * The ring's clock read for a measurement (a sync's latency), never for a decision: what {@link #nowNanos()}
     * returns, but a deterministic ring records no event for it, so measuring leaves a simulated run as it was.
     * Owner only, as {@link #nowNanos()}'s callers.
     *
     * @return nanoseconds on the ring's clock
     */
    default long measureNanos() {
        return nowNanos();
    }

    /** Makes a waiting or the next {@link #enter} return promptly. Any thread. */
    void wake();

    /**
     * The ring's clock, which timers run on and {@code Clock.monotonicNanos()} reads: nanoseconds in epoch units,
     * wall-clock time read once plus monotonic time since, so it never goes backwards and no step of the wall
     * clock moves it (runtime-uring: one mapping for the whole process, so every ring reads the same clock);
     * simulated time in the simulator, where a node's drift makes it run fast or slow and its steps do not
     * move it.
     *
     * @return the time
     */
    long nowNanos();

    /**
     * The wall-clock time when this ring's clock reads {@code nowNanos} (a value {@link #nowNanos()} just
     * returned): what {@code Clock.now()} reports. The same value where nothing steps the wall clock apart from
     * the ring's (runtime-uring, a simulation without nodes); a simulated node whose clock was stepped reports its
     * stepped time, held still after a step back until it catches up, so it never goes backwards either.
     *
     * @param nowNanos what {@link #nowNanos()} returned
     * @return epoch nanoseconds
     */
    default long wallNanos(long nowNanos) {
        return nowNanos;
    }

    /**
     * Memory the kernel may read and write during a request: native in production. Freed with
     * {@link #free}, only after the request that used it completed.
     *
     * @param bytes the size, {@code >= 0}
     * @return zeroed memory of that size
     */
    MemorySegment allocate(long bytes);

    /**
     * Frees memory from {@link #allocate}.
     *
     * @param segment the memory
     */
    void free(MemorySegment segment);

    /**
     * Releases the ring. The caller has waited for every request to complete.
     */
    @Override
    void close();

    /**
     * Releases the ring while requests may still be in flight, because it cannot be drained: memory the kernel
     * may write during its own teardown (receive buffers it selects) stays allocated. By default {@link #close()},
     * for a ring that holds no such memory.
     */
    default void closeAbandoned() {
        close();
    }
}
