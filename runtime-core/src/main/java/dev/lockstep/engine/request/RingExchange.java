package dev.lockstep.engine.request;

import dev.lockstep.Poll;
import dev.lockstep.engine.request.Slot.State;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.ArrayDeque;

/**
 * What one worker's {@link Driver} exchanges with its ring: the queues of requests that may run (ring requests,
 * one FIFO per {@link Request.Budget} in {@link SubmitQueues}; immediate requests; cancellations of closed
 * in-flight requests), staged while ring entries remain, and the completions that come back. At most
 * {@code ring.entries()} requests and as many cancellations are in flight (the {@link Driver} class doc's bounds).
 * Only the owning worker calls it, inside its critical section; the counts are read racily by metrics
 * ({@link #inFlight()}, {@link #queued()}).
 */
final class RingExchange {
    private final Worker worker;
    private final Ring ring;
    private final int ringEntries;
    private final SlotTable slots;
    private final RequestEnds ends;
    /** Queued ring requests, one FIFO per {@link Request.Budget}; merged in admission order when staged. */
    private final SubmitQueues submitQueue;
    private final ArrayDeque<Slot> immediateQueue = new ArrayDeque<>();
    /** The user data of closed in-flight requests, each waiting for its {@code ASYNC_CANCEL} to be staged. */
    private final ArrayDeque<Long> cancelQueue = new ArrayDeque<>();
    private final Submission submission = new Submission();
    private int inFlight;
    private int cancelsInFlight;

    RingExchange(Worker worker, Ring ring, SlotTable slots, RequestEnds ends) {
        this.worker = worker;
        this.ring = ring;
        this.ringEntries = ring.entries();
        this.slots = slots;
        this.ends = ends;
        this.submitQueue = new SubmitQueues(ringEntries, slots);
    }

    /**
     * Requests submitted to the ring and not yet completed. The worker's thread writes the count with plain
     * stores; a metrics thread reads it here without synchronization (see {@link WorkerMetrics}, Gauges): a racy
     * read of an int is some value the worker wrote (never torn, never negative), possibly not the latest, which
     * is all a gauge promises.
     */
    int inFlight() {
        return inFlight;
    }

    /** Ring requests queued for an entry; read by metrics without synchronization, as {@link #inFlight()}. */
    int queued() {
        return submitQueue.queued();
    }

    int inFlight(Request.Budget budget) {
        return submitQueue.inFlight[budget.ordinal()];
    }

    int budgetLimit(Request.Budget budget) {
        return submitQueue.limit[budget.ordinal()];
    }

    /** Whether {@link #stage} has something to do now. */
    boolean hasQueuedWork() {
        return !immediateQueue.isEmpty() || (inFlight < submitQueue.totalLimit && submitQueue.hasStageable())
                || (!cancelQueue.isEmpty() && cancelsInFlight < ringEntries);
    }

    /** Whether any request or cancellation is still in flight or a cancellation waits to be staged. */
    boolean busy() {
        return inFlight > 0 || cancelsInFlight > 0 || !cancelQueue.isEmpty();
    }

    /** Whether a request or cancellation is in the kernel or queued for it. */
    boolean hasRingWork() {
        return inFlight > 0 || cancelsInFlight > 0 || !submitQueue.isEmpty() || !cancelQueue.isEmpty()
                || !immediateQueue.isEmpty();
    }

    /** The slot's request may run: queued for the next service (an immediate request) or for the ring. */
    void enqueue(Slot slot) {
        slot.state = State.QUEUED;
        if (slot.request.kind() == Request.Kind.IMMEDIATE) {
            immediateQueue.add(slot);
        } else {
            submitQueue.add(slot);
        }
    }

    /** A queued slot leaves its queue unstaged (closed, or its worker closing). */
    void dequeue(Slot slot) {
        submitQueue.remove(slot);
        immediateQueue.remove(slot);
    }

    /**
     * An in-flight request whose operation was closed is cancelled: it retires when its own completion arrives,
     * because the kernel may use its buffer until then.
     */
    void cancel(Slot slot) {
        slot.state = State.CANCELLING;
        cancelQueue.add(slot.userData());
    }

    /** The ring failed and will deliver nothing more ({@link Driver#abandonAll}): nothing is queued or in flight. */
    void clear() {
        submitQueue.clear();
        immediateQueue.clear();
        cancelQueue.clear();
        inFlight = 0;
        cancelsInFlight = 0;
    }

    /** Immediate requests run now; ring requests and cancellations are staged while ring slots remain. */
    void stage() {
        while (!immediateQueue.isEmpty()) {
            Slot slot = immediateQueue.pollFirst();
            try {
                slot.request.runImmediate();
            } catch (Throwable failure) {
                slot.request.force(Poll.failed(slot.request.internalFailure(failure)));
            }
            ends.finish(slot);
        }
        while (!cancelQueue.isEmpty() && cancelsInFlight < ringEntries) {
            long target = cancelQueue.peekFirst();
            submission.clear();
            submission.opcode = Opcode.ASYNC_CANCEL;
            submission.target = target;
            submission.userData = target | WaiterId.CANCEL_BIT;
            if (!ring.stage(submission)) {
                worker.metrics().submissionQueueFull();
                return;
            }
            cancelQueue.pollFirst();
            cancelsInFlight++;
        }
        Slot slot;
        while (inFlight < submitQueue.totalLimit && (slot = submitQueue.peekStageable()) != null) {
            submission.clear();
            submission.userData = slot.userData();
            boolean staged;
            try {
                slot.request.prepare(submission, ring);
                staged = ring.stage(submission);
            } catch (Throwable failure) {
                // This one request could not be prepared (its buffer did not fit in memory, a bug): it fails,
                // typed and named, and the worker goes on with the next.
                submitQueue.remove(slot);
                failBeforeSubmission(slot, failure);
                continue;
            }
            if (!staged) {
                worker.metrics().submissionQueueFull();
                return;
            }
            submitQueue.staged(slot);
            slot.state = State.IN_FLIGHT;
            inFlight++;
        }
    }

    /** A queued request whose preparation threw: nothing reached the kernel, so it finishes now. */
    private void failBeforeSubmission(Slot slot, Throwable failure) {
        slot.request.force(Poll.failed(slot.request.internalFailure(failure)));
        ends.finish(slot);
    }

    /**
     * One completion from the ring ({@link Driver#complete}): {@code result} for {@code userData}.
     *
     * @return the slot of a request that completed with success and now joins its open's group sync
     *     ({@link Request#joinGroupSync}: a {@code SYNC} write), for the caller to make it wait for the permit;
     *     null otherwise
     */
    Slot complete(long userData, int result, int flags) {
        if (WaiterId.isCancel(userData)) {
            cancelsInFlight--;
            return null;
        }
        Slot slot = slots.live(WaiterId.indexOf(userData), WaiterId.generationOf(userData));
        if (slot == null || (slot.state != State.IN_FLIGHT && slot.state != State.CANCELLING)) {
            throw new IllegalStateException("completion for " + WaiterId.fromUserData(userData)
                    + " that is not in flight");
        }
        inFlight--;
        submitQueue.completed(slot);
        if (slot.state == State.CANCELLING) {
            // The cancellation lost its race: what the kernel made (an accepted socket) is the request's to drop.
            try {
                slot.request.dropCompletion(result, flags);
            } catch (Throwable failure) {
                worker.engine().fail(failure);
            }
            ends.retire(slot);
            return null;
        }
        boolean done;
        try {
            done = slot.request.complete(result, flags);
        } catch (Throwable failure) {
            // Completing this one request threw (an out-of-memory copying what arrived, a bug): it fails, typed.
            slot.request.force(Poll.failed(slot.request.internalFailure(failure)));
            done = true;
        }
        worker.metrics().completed(slot.request.meterKind(), result, done);
        if (done && slot.heldPermit != null && slot.flushNumber > 0 && RequestEnds.succeeded(slot.request)) {
            // Before the permit is given back (in finish): a worker nudged by that release reads it.
            slot.heldPermit.flushed(slot.flushNumber);
        }
        if (done && slot.heldPermit == null && RequestEnds.succeeded(slot.request)
                && slot.request.joinGroupSync() != null) {
            if (!worker.isClosing()) {
                return slot;
            }
            // Closing (closeAll ran or runs next): a permit wait now could outlast the ring's drain, which waits
            // for ring work only. Not durable, so not acknowledged, as closeAll fails a waiting sync.
            slot.request.force(Poll.failed(new dev.lockstep.ClosedException("worker " + worker.index()
                    + " closed before " + slot.request.describe() + " ran")));
        }
        if (done) {
            ends.finish(slot);
        } else {
            slot.state = State.QUEUED;
            submitQueue.requeue(slot);
        }
        return null;
    }
}
