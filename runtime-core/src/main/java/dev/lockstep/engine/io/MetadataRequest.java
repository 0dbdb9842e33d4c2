package dev.lockstep.engine.io;

import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.BlockingCall;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A storage metadata request that must list a directory (scan, the removal of a partition), which no ring opcode
 * does: synchronous system calls that may wait for a device (a directory {@code fsync}), submitted to the
 * worker's ring as one {@link Opcode#BLOCKING_CALL}, so they run
 * off the worker — its timers, completions and other fibers go on meanwhile — and in the order of their
 * partition's {@link MetadataLane}, not under any lock.
 *
 * <h2>Threads</h2>
 * {@link #run()} runs where the kernel runs blocking calls (an offload thread of runtime-uring, the simulator's
 * thread). It touches only this request's {@code raw} and {@code failure} fields and thread-safe
 * {@code SystemCalls}; the partition's lane guarantees no other metadata request of the partition runs at the
 * same time. What it writes is read by {@link #complete} on the worker, after the kernel delivered the
 * completion, which happens-after the call returned ({@link BlockingCall}). The value is then finished on the
 * worker ({@code onWorker}: wrapping an fd in a blob), so no engine object is built off the worker.
 *
 * <p>Retained work: once admitted it runs to its end even if its operation is closed (a half-created blob is
 * not left for a cancellation to decide); an unobserved result that holds an fd is closed by the driver, and
 * an fd the call opened after its ring failed is closed by whichever of the call and the driver's abandonment
 * comes second ({@link #releaseAbandoned}).
 */
final class MetadataRequest extends Request implements BlockingCall {
    private final MetadataLane lane;
    private final String description;
    private final Supplier<Object> body;
    private final Function<Object, Object> onWorker;
    private final java.util.function.Consumer<Object> discard;
    /** Written by {@link #run()}, read by {@link #complete} on the worker (published by the completion). */
    private Object raw;
    private RuntimeException failure;
    /**
     * {@link #RUNNING} until the call returns ({@link #RAN}) or its ring failed and the driver let go of the request
     * ({@link #ABANDONED}): whichever comes second owns a value the call made and nobody will take.
     */
    private final java.util.concurrent.atomic.AtomicInteger fate = new java.util.concurrent.atomic.AtomicInteger();
    private static final int RUNNING = 0;
    private static final int RAN = 1;
    private static final int ABANDONED = 2;

    /** The application line that asked for the call, when the kernel records callers; else null. */
    private final dev.lockstep.kernel.CallSite requestedFrom;

    /**
     * @param lane the partition's lane
     * @param description names the call, for messages
     * @param body the system calls, run off the worker; throws typed failures
     * @param onWorker turns the body's value into the operation's, on the worker; null for the value itself
     * @param discard releases a value of the body that never reaches {@code onWorker} (its ring failed while the
     *     call ran); null if the value holds nothing
     */
    MetadataRequest(MetadataLane lane, String description, Supplier<Object> body, Function<Object, Object> onWorker,
                    java.util.function.Consumer<Object> discard) {
        this.lane = lane;
        this.description = description;
        this.body = body;
        this.onWorker = onWorker;
        this.discard = discard;
        // Made by the calling fiber, so its stack still has the application's line on it; the call runs where
        // it has not.
        Worker caller = Worker.current();
        this.requestedFrom = caller == null ? null : caller.engine().kernel().callerSite();
    }

    @Override
    public dev.lockstep.kernel.CallSite requestedFrom() {
        return requestedFrom;
    }

    @Override
    public Kind kind() {
        return Kind.RING;
    }

    @Override
    protected MetadataLane lane() {
        return lane;
    }

    @Override
    public boolean retained() {
        return true;
    }

    @Override
    public void prepare(Submission submission, Ring ring) {
        submission.opcode = Opcode.BLOCKING_CALL;
        submission.call = this;
    }

    /** The body, off the worker; never throws (see {@link BlockingCall}). */
    @Override
    public int run() {
        int result;
        try {
            raw = body.get();
            result = 0;
        } catch (RuntimeException thrown) {
            failure = thrown;
            result = -Errno.EIO;
        } catch (Error thrown) {
            // An out-of-memory on the offload thread fails this one request, typed and named.
            failure = internalFailure(thrown);
            result = -Errno.EIO;
        }
        if (!fate.compareAndSet(RUNNING, RAN)) {
            discardRaw(); // the ring failed meanwhile: nobody will complete this request
        }
        return result;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The call may still be running off the worker: if it has returned, its value is released here; otherwise
     * the call releases it when it returns.
     */
    @Override
    public void releaseAbandoned(Ring ring) {
        if (!fate.compareAndSet(RUNNING, ABANDONED)) {
            discardRaw();
        }
    }

    private void discardRaw() {
        Object value = raw;
        raw = null;
        if (value != null && discard != null) {
            discard.accept(value);
        }
    }

    @Override
    public boolean complete(int result) {
        if (failure != null) {
            return fail(failure);
        }
        if (result < 0) {
            return fail(new dev.lockstep.StorageIoException(describe() + ": the kernel failed the call ("
                    + Errno.describe(-result) + ")"));
        }
        Object value = raw;
        raw = null; // handed on: a later abandonment has nothing to release
        return succeed(onWorker == null ? value : onWorker.apply(value));
    }

    @Override
    public String describe() {
        return description;
    }
}
