package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.lockstep.kernel.CompletionSink;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * A ring's completion queue as the kernel maps it: CQEs between the head this ring has consumed and the tail the
 * kernel has written, read in the kernel's binary layout and handed on, the wake-up poll's to {@link RingWakeUp}
 * and every other one to a {@link CompletionSink}.
 *
 * <p>Threads: the ring's owner thread only (or a fiber of its worker, on it). The kernel's tail is read with
 * acquire, so the CQEs before it are complete; the consumed head is published with release once they are read,
 * so the kernel reuses no entry before it was read. The overflow count alone is read on any thread
 * ({@link #overflows()}).
 */
final class CompletionQueue {
    private static final int CQE_BYTES = 16;
    private static final VarHandle SHARED_INT = JAVA_INT.varHandle();

    private final MemorySegment cqRing;
    private final int mask;
    private final long headOffset;
    private final long tailOffset;
    private final long cqesOffset;
    private int consumedHead;
    /**
     * Times the ring found this queue overflowed into the kernel's backlog: written by the owner with an opaque
     * store, read by metrics on any thread with an opaque load, which sees a whole count, perhaps a moment old.
     */
    private long overflows;
    private static final VarHandle OVERFLOWS;

    static {
        try {
            OVERFLOWS = java.lang.invoke.MethodHandles.lookup().findVarHandle(CompletionQueue.class, "overflows",
                    long.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    /**
     * Bytes to map for the CQ ring and its CQEs ({@code IORING_OFF_CQ_RING}).
     *
     * @param params the filled-in {@code struct io_uring_params}
     * @return bytes
     */
    static long ringBytes(MemorySegment params) {
        long cqesOffset = params.get(JAVA_INT, UringSetup.PARAMS_CQ_OFFSETS + 20);
        return cqesOffset + (long) CQE_BYTES * params.get(JAVA_INT, UringSetup.PARAMS_CQ_ENTRIES);
    }

    /**
     * @param params the filled-in {@code struct io_uring_params}
     * @param cqRing the mapped CQ ring, {@link #ringBytes} long (possibly the SQ ring's mapping too)
     */
    CompletionQueue(MemorySegment params, MemorySegment cqRing) {
        this.cqRing = cqRing;
        this.headOffset = params.get(JAVA_INT, UringSetup.PARAMS_CQ_OFFSETS);
        this.tailOffset = params.get(JAVA_INT, UringSetup.PARAMS_CQ_OFFSETS + 4);
        long maskOffset = params.get(JAVA_INT, UringSetup.PARAMS_CQ_OFFSETS + 8);
        this.cqesOffset = params.get(JAVA_INT, UringSetup.PARAMS_CQ_OFFSETS + 20);
        this.mask = cqRing.get(JAVA_INT, maskOffset);
        this.consumedHead = (int) SHARED_INT.getAcquire(cqRing, headOffset);
    }

    /**
     * Hands on every completion the kernel has written: the wake-up poll's to {@code wakeUp}, the rest to
     * {@code sink}.
     *
     * @param sink receives the completions of submissions
     * @param wakeUp receives the wake-up poll's
     * @return the completions delivered to {@code sink}
     */
    int reapVisible(CompletionSink sink, RingWakeUp wakeUp) {
        int head = consumedHead;
        int tail = (int) SHARED_INT.getAcquire(cqRing, tailOffset);
        assert tail - head >= 0 && tail - head <= mask + 1 : "the kernel's tail " + tail + " is "
                + (tail - head) + " entries past the head " + head + " of a queue of " + (mask + 1);
        int delivered = 0;
        try {
            while (head != tail) {
                long cqe = cqesOffset + (long) (head & mask) * CQE_BYTES;
                long userData = cqRing.get(JAVA_LONG, cqe);
                int result = cqRing.get(JAVA_INT, cqe + 8);
                int flags = cqRing.get(JAVA_INT, cqe + 12);
                head++;
                if (userData == UringRing.WAKE_USER_DATA) {
                    wakeUp.onPollCompletion(result, flags);
                } else {
                    delivered++;
                    sink.complete(userData, result, flags);
                }
            }
        } finally {
            // Also when a sink throws: the completions it saw are consumed, the rest wait for the next enter.
            consumedHead = head;
            SHARED_INT.setRelease(cqRing, headOffset, head);
        }
        return delivered;
    }

    /** Counts one overflow the ring found ({@code IORING_SQ_CQ_OVERFLOW}). Owner only. */
    void countOverflow() {
        OVERFLOWS.setOpaque(this, overflows + 1);
    }

    /**
     * Overflows counted so far. Any thread.
     *
     * @return the count
     */
    long overflows() {
        return (long) OVERFLOWS.getOpaque(this);
    }
}
