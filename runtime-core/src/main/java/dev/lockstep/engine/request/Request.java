package dev.lockstep.engine.request;

import dev.lockstep.LockstepException;
import dev.lockstep.Poll;
import dev.lockstep.StorageIoException;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.MetadataLane;
import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.engine.worker.Recycler;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/**
 * One request's state machine, owned by the driver from admission to retirement.
 *
 * <p>A request is driven only by its worker. Ring requests fill a submission, are told each completion and
 * say whether they are done (a short read, {@code EAGAIN} or {@code EINTR} resubmits); timer requests complete
 * when their deadline passes; immediate requests run synchronous kernel calls on the worker. Every buffer and
 * fd a submission points to is owned by the request until {@link #release} — the kernel may use them until
 * the request's own completion arrives, even after a cancellation.
 */
public abstract class Request {
    /** How the driver runs a request. */
    public enum Kind {
        /** Submitted to the ring; takes a ring slot while in flight. */
        RING,
        /** A sleep: completes when its deadline passes; never touches the ring. */
        TIMER,
        /** Synchronous kernel calls run by the worker; never touches the ring. */
        IMMEDIATE
    }

    /**
     * Which in-flight budget of its worker a ring request draws on: requests that wait on a peer must not be
     * able to take every ring entry from those that end by themselves (the liveness model of
     * {@code SubmitQueues}).
     */
    public enum Budget {
        /** Ends by itself when the device answers: reads, writes, syncs; the default. */
        STORAGE,
        /** Waits while the peer does not read: sends, connects. */
        OUTBOUND,
        /** Waits until a peer sends or dials: receives, accepts. */
        INBOUND
    }

    /**
     * The outcome of every request that succeeds without a value: one shared instance, since a
     * {@link Poll.Ready} is immutable, so such a request allocates no outcome.
     */
    static final Poll<Object> DONE = Poll.ready(null);

    private Poll<Object> result;

    /**
     * How the driver runs this request.
     *
     * @return the kind
     */
    public abstract Kind kind();

    /**
     * Whether closing the operation lets the request finish (writes, syncs) instead of cancelling it.
     *
     * @return true for retained work
     */
    public boolean retained() {
        return false;
    }

    /**
     * The in-flight budget this ring request draws on.
     *
     * @return {@link Budget#STORAGE} unless overridden
     */
    public Budget budget() {
        return Budget.STORAGE;
    }

    /**
     * Whether this ring request usually completes during its own submission: the kernel answers it before
     * {@code io_uring_enter} returns (a NOP, a read the page cache holds, a send with room in the socket
     * buffer). A fiber that awaits such a request with nothing else runnable on its worker then submits it
     * itself and takes the result without parking ({@link InlineTurns#turn}). A wrong guess costs one
     * {@code io_uring_enter} that submits the request without reaping it, so a request that usually completes
     * later (a direct read, a buffered write the kernel hands to its workers, a sync, a receive that waits for
     * the peer) says false, as every request does unless it overrides this.
     *
     * @return true if the request is worth submitting in place
     */
    public boolean completesAtSubmission() {
        return false;
    }

    /**
     * The durability permit a sync must hold while it runs, or null.
     *
     * @return the permit
     */
    public DurabilityPermit permit() {
        return null;
    }

    /**
     * Called by the driver when this ring request completed with success and holds no permit: the durability
     * permit of the open whose group sync it joins before its operation completes (a {@code SYNC} write, whose
     * bytes must be durable at completion), or null to complete now. A non-null answer makes the request a sync
     * of that open from here on: it waits for the permit with a ticket taken now, as a sync admitted now does,
     * {@link #permit()} answers that permit, {@link #completeWithoutKernel()} and its next submissions are the
     * sync's, and its result is the sync's.
     *
     * @return the permit, or null
     */
    protected DurabilityPermit joinGroupSync() {
        return null;
    }

    /**
     * A flush another request issued covered this sync while it waited for the permit: it completes with success,
     * without the kernel ({@code DurabilityPermit}'s group sync).
     */
    protected void coveredByFlush() {
        force(DONE);
    }

    /**
     * The lane of a metadata request: the request is submitted only once every request admitted to the same
     * lane before it has left ({@link MetadataLane}).
     *
     * @return the lane, or null for none
     */
    protected MetadataLane lane() {
        return null;
    }

    /**
     * Called once the permit is held: whether the sync can complete without the kernel (nothing to sync).
     * If so, {@link #result()} is set and the permit is released by the driver.
     *
     * @return true if completed
     */
    public boolean completeWithoutKernel() {
        return false;
    }

    /**
     * Fills the submission for the next round trip of a ring request.
     *
     * @param submission cleared, with user data set; fill the rest
     * @param ring the ring, for memory
     */
    public void prepare(Submission submission, Ring ring) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " is not a ring request");
    }

    /**
     * One completion of a ring request.
     *
     * @param result the kernel's result: {@code >= 0} or {@code -errno}
     * @return true if the request is done ({@link #result()} set); false to submit again
     */
    public boolean complete(int result) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " is not a ring request");
    }

    /**
     * One completion of a ring request, with the completion's flags: {@link #complete(int)} unless the request
     * asked the ring to select its buffer ({@link Submission#SELECT_BUFFER}), whose completion names it
     * ({@link Ring#COMPLETION_BUFFER}): such a request gives the buffer back ({@link Ring#returnSelected}) here,
     * also when it throws.
     *
     * @param result the kernel's result: {@code >= 0} or {@code -errno}
     * @param flags the completion's flags
     * @return true if the request is done ({@link #result()} set); false to submit again
     */
    public boolean complete(int result, int flags) {
        return complete(result);
    }

    /** Runs an immediate request; sets {@link #result()}. Runs on the worker, inside its critical section. */
    public void runImmediate() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " is not immediate");
    }

    /**
     * The typed failure this request reports when preparing, submitting or completing it threw inside the
     * runtime — memory for its buffer ran out, or a bug — so the one request fails and its worker goes on.
     * A {@link LockstepException} passes through; anything else is wrapped in the request's own failure type,
     * naming the request. Blob requests keep this default ({@link StorageIoException}); network requests
     * override it with their {@code NetworkException}.
     *
     * @param cause what was thrown
     * @return the failure to report
     */
    public RuntimeException internalFailure(Throwable cause) {
        if (cause instanceof LockstepException typed) {
            return typed;
        }
        return new StorageIoException(describe() + " failed inside the runtime: " + cause, cause);
    }

    /**
     * The operation was closed before the request completed (cancelled or detached). Receives and sends
     * poison their side here.
     */
    public void closedEarly() {
    }

    /**
     * Releases every buffer and fd reference the request holds. Called once, at retirement, when the kernel
     * no longer references them.
     *
     * @param ring the ring whose memory to free
     */
    public void release(Ring ring) {
    }

    /**
     * Whether {@link #release} or {@link #releaseAbandoned} does anything for this request. The driver runs a
     * retired request's release as a deferred callback, and a queued callback makes the worker's next service
     * turn due: a request that holds nothing (a timer) answers false, so a fiber that only slept leaves its
     * worker nothing to do. A subclass that overrides either release method must answer true, the default.
     *
     * @return false only if both release methods do nothing
     */
    public boolean holdsResources() {
        return true;
    }

    /**
     * A completion arrived for this request after its operation was closed and its cancellation was submitted:
     * the cancellation lost the race. Whatever the kernel made for it is dropped here — an accept that
     * succeeded closes the accepted socket. Runs on the worker inside its critical section: no user code.
     *
     * @param result the kernel's result: {@code >= 0} or {@code -errno}
     */
    public void dropCompletion(int result) {
    }

    /**
     * {@link #dropCompletion(int)} with the completion's flags: a request whose completion names a selected
     * buffer ({@link Ring#COMPLETION_BUFFER}) gives it back here.
     *
     * @param result the kernel's result: {@code >= 0} or {@code -errno}
     * @param flags the completion's flags
     */
    public void dropCompletion(int result, int flags) {
        dropCompletion(result);
    }

    /**
     * Releases what the request holds after its ring failed while the kernel still held it: fd references go,
     * but memory the kernel may still write must not be freed. The default releases everything (a request
     * with no kernel-visible buffer); ring requests override it.
     *
     * @param ring the ring the request was submitted to
     */
    public void releaseAbandoned(Ring ring) {
        release(ring);
    }

    /**
     * A short description for messages, naming the fd, path or address.
     *
     * @return the description
     */
    public abstract String describe();

    /**
     * What the worker's metrics count this request's completions as ({@link WorkerMetrics#completed}).
     *
     * @return the kind; {@code OTHER} unless a transfer, sync or connection overrides it
     */
    protected WorkerMetrics.Kind meterKind() {
        return WorkerMetrics.Kind.OTHER;
    }

    /**
     * The outcome, once done.
     *
     * @return the outcome, or null while running
     */
    public final Poll<Object> result() {
        return result;
    }

    /**
     * Sets the outcome to a value.
     *
     * @param value the value
     * @return true, for {@link #complete}
     */
    protected final boolean succeed(Object value) {
        assert result == null : describe() + " succeeds after it ended with " + result;
        result = value == null ? DONE : Poll.ready(value);
        return true;
    }

    /**
     * Sets the outcome to a failure.
     *
     * @param failure the failure
     * @return true, for {@link #complete}
     */
    protected final boolean fail(RuntimeException failure) {
        assert result == null : describe() + " fails with " + failure + " after it ended with " + result;
        result = Poll.failed(failure);
        return true;
    }

    /**
     * Clears the outcome, for a retired request that a {@link Recycler} hands out again.
     */
    protected final void clearForReuse() {
        result = null;
    }

    /**
     * Forces an outcome (a sleep's end, closure, a failure inside the runtime).
     *
     * @param outcome the outcome
     */
    final void force(Poll<Object> outcome) {
        result = outcome;
    }
}
