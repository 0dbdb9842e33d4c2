package dev.lockstep.engine;

import dev.lockstep.ClosedException;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The slab of one worker's requests: pending ones and completed results, indexed by {@link WaiterId}.
 *
 * <h2>States</h2>
 * A request is, in turn: {@code QUEUED} (admitted, waiting for a ring slot or, for immediate requests, for the
 * next service), {@code WAITING_PERMIT} (a sync waiting for its open's durability permit), {@code WAITING_LANE}
 * (a metadata request waiting for the requests admitted to its partition's {@link MetadataLane} before it),
 * {@code IN_FLIGHT}
 * (submitted), {@code TIMER} (a sleep), {@code COMPLETED} (result kept until observed) and then retired.
 * {@code CANCELLING} is an in-flight request whose operation was closed: it retires when its own completion
 * arrives, because the kernel may use its buffer until then. Admission never refuses: the ring size bounds
 * requests in flight, not requests admitted, and an unobserved result never occupies a ring slot. What a slot
 * holds for its request — a sleep's timer, a place in a metadata lane, a sync's durability permit — is given back
 * in one place, {@link #letGo}, which every way out of a request goes through (its finish or its retirement).
 *
 * <h2>Threads</h2>
 * Only the owning worker calls the driver, and only while it holds the worker's state (see
 * {@link Worker#borrow()}). The driver never calls user code: wakes, releases and channel sends are queued on
 * the worker's deferred queue and run after the borrow ends.
 *
 * <h2>Bounds</h2>
 * At most {@code ring.entries()} requests and {@code ring.entries()} cancellations are in flight, so a
 * completion queue of twice the entries cannot overflow. Within that, requests that wait on peers (receives,
 * accepts, sends) have in-flight budgets of their own, so they can never hold every entry storage needs: see
 * the liveness model of {@link SubmitQueues}.
 *
 * <p>Why one class of about 970 lines: every transition between the states above is made here, on one
 * {@link Slot}, so that each state's invariants (who holds a ring entry, a permit, a lane, a timer, a waker) can be
 * checked in one place; the parts that have no transitions of their own already live apart ({@link SubmitQueues},
 * {@link TimerHeap}, {@link DurabilityPermit}, {@link MetadataLane}, {@link Observer}).
 *
 * <h2>Size</h2>
 * Over 600 lines (about 970): the slot table's state machine (admission, permits, lanes, staging, completion,
 * timers, cancellation and retirement) is one machine over one table; every transition is here so the
 * states' invariants can be read in one place.
 */
public final class Driver implements CompletionSink {
    /**
     * The smallest ring whose requests that wait on peers are not bounded by its entries; a smaller ring (for
     * tests) shares its entries among every request in admission order. See {@link SubmitQueues}; the simulated
     * ring checks the engine against the same line.
     */
    public static final int SMALLEST_UNSHARED_RING = 4;

    enum State { FREE, QUEUED, WAITING_PERMIT, WAITING_LANE, IN_FLIGHT, TIMER, COMPLETED, CANCELLING }

    static final class Slot {
        final int index;
        int generation;
        State state = State.FREE;
        Request request;
        /** The slot's one observer, reset for each request it admits (see {@link Observer}). */
        final Observer observer = new Observer();
        Poll<Object> result;
        /** The armed timer of a sleep, disarmed when the slot lets go ({@link #letGo}). */
        TimerHeap.Timer timer;
        /**
         * The durability permit this sync holds: set when {@link #pumpPermits} grants it, given back only by
         * {@link #letGo}, whichever way the sync ends.
         */
        DurabilityPermit heldPermit;
        /** The in-flight budget a ring request draws on, fixed at admission. */
        Request.Budget budget = Request.Budget.STORAGE;
        /** Admission order, so the per-budget queues stage in the order requests were admitted. */
        long admission;
        /** A sync's ticket: the first flush of its open issued after its admission (see DurabilityPermit). */
        long flushTicket;
        /** The number of the flush this sync issued, or 0 if it issued none. */
        long flushNumber;
        /** A metadata request's place in its lane, from admission until it leaves; else null. */
        MetadataLane.Waiting laneEntry;

        Slot(int index) {
            this.index = index;
        }

        WaiterId id() {
            return new WaiterId(index, generation);
        }

        /** {@code id().userData()} without making the id. */
        long userData() {
            return WaiterId.pack(index, generation);
        }
    }

    private final Worker worker;
    private final Ring ring;
    private final int ringEntries;
    private final List<Slot> slots = new ArrayList<>();
    /**
     * Released indices, FIFO: the index released longest ago is reused first, so a stale id (a queued Cancel, a
     * late message) meets a new generation of its slot as rarely as possible. An index whose generation is
     * used up is never released again (see {@link #retire}), so a generation cannot wrap into a live slot.
     */
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    /** Queued ring requests, one FIFO per {@link Request.Budget}; merged in admission order when staged. */
    private final SubmitQueues submitQueue;
    private final ArrayDeque<Slot> immediateQueue = new ArrayDeque<>();
    private final List<Slot> permitWaiters = new ArrayList<>();
    /** Metadata requests waiting for their turn in their lane, in admission order. */
    private final List<Slot> laneWaiters = new ArrayList<>();
    private final ArrayDeque<Long> cancelQueue = new ArrayDeque<>();
    private final TimerHeap timers = new TimerHeap();
    private final Submission submission = new Submission();
    private int occupied;
    private long admissions;
    private int inFlight;
    private int cancelsInFlight;

    Driver(Worker worker, Ring ring) {
        this.worker = worker;
        this.ring = ring;
        this.ringEntries = ring.entries();
        this.submitQueue = new SubmitQueues(ringEntries);
    }

    /**
     * Unfinished logical requests: admitted and not yet retired, whatever their state.
     *
     * @return the count
     */
    public int size() {
        return occupied;
    }

    /**
     * Requests submitted to the ring and not yet completed. The worker's thread writes the count with plain
     * stores; a metrics thread reads it here without synchronization (see {@link WorkerMetrics}, Gauges): a racy
     * read of an int is some value the worker wrote (never torn, never negative), possibly not the latest, which
     * is all a gauge promises.
     *
     * @return the count: storage requests at most the ring's entries, network requests any number (see
     *     {@link SubmitQueues})
     */
    int inFlight() {
        return inFlight;
    }

    /**
     * Requests admitted and waiting: for the ring, for a durability permit, or for their metadata lane. Read by
     * metrics from any thread without synchronization, as {@link #inFlight()}: each of the three counts is an int
     * the worker wrote (an {@code ArrayList}'s size is a plain int field; reading it never touches the array), so
     * the sum is never negative, though its parts may be of slightly different moments.
     *
     * @return the count
     */
    int queued() {
        return submitQueue.queued() + permitWaiters.size() + laneWaiters.size();
    }

    boolean hasQueuedWork() {
        return !immediateQueue.isEmpty() || (inFlight < submitQueue.totalLimit && submitQueue.hasStageable())
                || (!cancelQueue.isEmpty() && cancelsInFlight < ringEntries);
    }

    /**
     * Ring requests of one budget in flight now.
     *
     * @param budget the budget
     * @return the count, at most {@link #budgetLimit}
     */
    public int inFlight(Request.Budget budget) {
        return submitQueue.inFlight[budget.ordinal()];
    }

    /**
     * The most ring requests of one budget that may be in flight at once on this worker (the liveness model of
     * {@link SubmitQueues}).
     *
     * @param budget the budget
     * @return the limit, {@link Integer#MAX_VALUE} for none (the network's budgets on a ring of 4 entries or more)
     */
    public int budgetLimit(Request.Budget budget) {
        return submitQueue.limit[budget.ordinal()];
    }

    /**
     * Takes ownership of a request. Never refuses: a full ring queues it.
     *
     * @param request the request
     * @param detachedChannel where a detached sync's result goes, or null for a local registration, whose
     *     poll observes it
     * @param nowNanos the worker's cached clock
     * @return its identity, packed as user data ({@link WaiterId#userData()})
     */
    long admit(Request request, OneShot<Object> detachedChannel, long nowNanos) {
        Slot slot = free.pollFirst();
        if (slot == null) {
            slot = new Slot(slots.size());
            slots.add(slot);
        }
        occupied++;
        slot.request = request;
        slot.observer.observe(detachedChannel);
        slot.result = null;
        slot.budget = request.kind() == Request.Kind.RING ? request.budget() : Request.Budget.STORAGE;
        slot.admission = ++admissions;
        if (request instanceof TimerRequest sleep) {
            slot.state = State.TIMER;
            if (sleep.deadlineNanos() <= nowNanos) {
                request.force(Request.DONE);
                finish(slot);
            } else {
                slot.timer = timers.add(sleep.deadlineNanos(), slot);
            }
            return slot.userData();
        }
        if (request.permit() != null) {
            slot.flushTicket = request.permit().ticket();
            slot.flushNumber = 0;
            slot.state = State.WAITING_PERMIT;
            permitWaiters.add(slot);
            request.permit().addWaiter(worker);
            pumpPermits();
        } else if (request.lane() != null) {
            slot.state = State.WAITING_LANE;
            slot.laneEntry = request.lane().join(request, worker);
            laneWaiters.add(slot);
            pumpLanes();
        } else if (request.kind() == Request.Kind.IMMEDIATE) {
            slot.state = State.QUEUED;
            immediateQueue.add(slot);
        } else {
            slot.state = State.QUEUED;
            submitQueue.add(slot);
        }
        return slot.userData();
    }

    /**
     * Test hook: ages every free slot to {@code generation}, as if it had been reused that many times.
     *
     * @param generation the generation, at most {@link WaiterId#MAX_GENERATION}
     */
    void ageFreeSlots(int generation) {
        for (Slot slot : free) {
            slot.generation = generation;
        }
    }

    /**
     * Moves waiting syncs on, in admission order: one a flush issued after its admission already covered
     * completes (group sync, see {@link DurabilityPermit}); otherwise the first to get a free permit completes
     * at once if nothing was written since the last flush, or issues the next flush, which then covers every
     * sync waiting with an earlier ticket.
     */
    void pumpPermits() {
        if (permitWaiters.isEmpty()) {
            return; // every stage() comes here: no iterator made for nothing, whatever the JIT makes of it
        }
        for (Iterator<Slot> it = permitWaiters.iterator(); it.hasNext(); ) {
            Slot slot = it.next();
            DurabilityPermit permit = slot.request.permit();
            boolean covered = permit.covers(slot.flushTicket);
            if (!covered) {
                if (!permit.tryAcquire()) {
                    continue;
                }
                // The flush that covers it may have succeeded between the two reads.
                covered = permit.covers(slot.flushTicket);
                if (covered) {
                    permit.release();
                } else {
                    slot.heldPermit = permit; // the slot's from here: letGo gives it back, on every way out
                }
            }
            it.remove();
            if (!hasPermitWaiter(permit)) {
                permit.removeWaiter(worker);
            }
            if (covered) {
                slot.request.force(Request.DONE);
                finish(slot);
            } else if (slot.request.completeWithoutKernel()) {
                finish(slot);
            } else {
                slot.flushNumber = permit.startFlush();
                slot.state = State.QUEUED;
                submitQueue.add(slot);
            }
        }
    }

    /**
     * Queues for submission every metadata request that is now the head of its lane (see
     * {@link MetadataLane}: tested on every service turn; a leaving request nudges the new head's worker).
     */
    void pumpLanes() {
        if (laneWaiters.isEmpty()) {
            return; // as in pumpPermits
        }
        for (Iterator<Slot> it = laneWaiters.iterator(); it.hasNext(); ) {
            Slot slot = it.next();
            if (slot.request.lane().isHead(slot.laneEntry)) {
                it.remove();
                slot.state = State.QUEUED;
                if (slot.request.kind() == Request.Kind.IMMEDIATE) {
                    immediateQueue.add(slot);
                } else {
                    submitQueue.add(slot);
                }
            }
        }
    }

    /** The request's outcome is known: the next request of its lane may run. Idempotent. */
    private void leaveLane(Slot slot) {
        if (slot.laneEntry != null) {
            slot.request.lane().leave(slot.laneEntry);
            slot.laneEntry = null;
        }
    }

    private boolean hasPermitWaiter(DurabilityPermit permit) {
        for (Slot slot : permitWaiters) {
            if (slot.request.permit() == permit) {
                return true;
            }
        }
        return false;
    }

    private Slot live(WaiterId id) {
        return live(id.index(), id.generation());
    }

    private Slot live(long key) {
        return live(WaiterId.indexOf(key), WaiterId.generationOf(key));
    }

    private Slot live(int index, int generation) {
        if (index < 0 || index >= slots.size()) {
            return null;
        }
        Slot slot = slots.get(index);
        return slot.state != State.FREE && slot.generation == generation ? slot : null;
    }

    /**
     * The result of a completed request, consumed and retired; null while pending or if stale.
     *
     * @param id the request
     * @return the result, or null
     */
    Poll<Object> take(WaiterId id) {
        return take(id.userData());
    }

    /** {@link #take(WaiterId)} by the id's user data. */
    Poll<Object> take(long key) {
        Slot slot = live(key);
        if (slot == null || slot.state != State.COMPLETED) {
            return null;
        }
        Poll<Object> result = slot.result;
        retire(slot);
        return result;
    }

    /**
     * Whether the id names a live request.
     *
     * @param id the request
     * @return true if admitted and not retired
     */
    boolean isLive(WaiterId id) {
        return isLive(id.userData());
    }

    /** {@link #isLive(WaiterId)} by the id's user data. */
    boolean isLive(long key) {
        return live(key) != null;
    }

    /**
     * Whether a poll of the request may still learn its result: it is live and was not closed. A closed request
     * can stay live for a while (a receive being cancelled, a write finishing unobserved) with no observer: a
     * poll of it must read the close rather than install a waker that nothing will wake. Only a close by the
     * request's key reaches such a poll ({@link PendingSet#closeAll} of a fiber's reusable registration); a
     * handle closed through itself answers its pollers before it asks here.
     *
     * @param key the request's user data ({@link WaiterId#userData()})
     * @return true if admitted, not retired and not closed
     */
    boolean isOpen(long key) {
        Slot slot = live(key);
        return slot != null && slot.observer.kind != Observer.Kind.NONE;
    }

    /** What an inline turn can do for an awaited request ({@link #inlineTurnFor}). */
    enum InlineTurn {
        /** Nothing: the request is not the ring's to finish (a timer, a permit or lane wait, done, stale). */
        NONE,
        /**
         * Submit it and reap without waiting: it waits in the submit queue and usually completes at submission
         * ({@link Request#completesAtSubmission}).
         */
        SUBMIT,
        /** Wait in the ring for it: queued for the ring or in flight, and it completes later. */
        WAIT
    }

    /**
     * What a turn made by the awaiting fiber could do for a request ({@link InlineTurns#turn}), in one lookup.
     *
     * @param key the request's user data ({@link WaiterId#userData()})
     * @return the kind of turn worth making
     */
    InlineTurn inlineTurnFor(long key) {
        Slot slot = live(key);
        if (slot == null || slot.request.kind() != Request.Kind.RING) {
            return InlineTurn.NONE;
        }
        if (slot.state == State.QUEUED) {
            return slot.request.completesAtSubmission() ? InlineTurn.SUBMIT : InlineTurn.WAIT;
        }
        return slot.state == State.IN_FLIGHT ? InlineTurn.WAIT : InlineTurn.NONE;
    }

    /**
     * The installed waker of a pending local observer.
     *
     * @param key the request's user data ({@link WaiterId#userData()})
     * @return the waker, or null
     */
    Waker installedWaker(long key) {
        Slot slot = live(key);
        return slot == null || slot.observer.kind != Observer.Kind.LOCAL ? null : slot.observer.waker;
    }

    /**
     * Installs a retained waker on a pending local observer.
     *
     * @param key the request's user data ({@link WaiterId#userData()})
     * @param waker the retained waker
     * @return the displaced waker, to release outside the borrow; or {@code waker} itself if the request is no
     *     longer pending locally (the caller must release it)
     */
    Waker install(long key, Waker waker) {
        Slot slot = live(key);
        if (slot == null || slot.state == State.COMPLETED || slot.observer.kind != Observer.Kind.LOCAL) {
            return waker;
        }
        Waker displaced = slot.observer.waker;
        slot.observer.waker = waker;
        // Who installed it: their own close releases it, anyone else's close wakes it (close means close).
        slot.observer.wakerThread = Thread.currentThread();
        return displaced;
    }

    /**
     * Moves observation of a request to a channel (a foreign poll). A stale id closes the channel; a completed
     * request sends its result at once and retires.
     *
     * @param id the request
     * @param channel the channel
     */
    void forward(WaiterId id, OneShot<Object> channel) {
        Slot slot = live(id);
        if (slot == null) {
            worker.defer(channel::closeSender);
            return;
        }
        if (slot.state == State.COMPLETED) {
            Poll<Object> result = slot.result;
            retire(slot);
            worker.defer(() -> channel.send(result));
            return;
        }
        if (slot.observer.kind == Observer.Kind.NONE) {
            // Closed already (cancelling, or retained work finishing unobserved): nothing will be delivered.
            worker.defer(channel::closeSender);
            return;
        }
        Waker displaced = slot.observer.waker;
        slot.observer.kind = Observer.Kind.FORWARDED;
        slot.observer.waker = null;
        slot.observer.channel = channel;
        if (displaced != null) {
            worker.deferRelease(displaced);
        }
    }

    /**
     * {@link #close(WaiterId, Thread)} sent from another thread or worker (a {@link Mailbox.Cancel}).
     *
     * @param id the request; stale ids are ignored
     */
    void close(WaiterId id) {
        close(id, null, false);
    }

    /**
     * {@link #close(WaiterId, Thread, boolean)} without a promotion.
     *
     * @param id the request; stale ids are ignored
     * @param closer the closing thread, or null for a close sent from elsewhere
     */
    void close(WaiterId id, Thread closer) {
        close(id, closer, false);
    }

    /** {@link #close(WaiterId, Thread)} by the id's user data. */
    void close(long key, Thread closer) {
        close(live(key), closer, false);
    }

    /**
     * Closes a request's operation: queued work retires, in-flight reads and receives are cancelled and retire
     * on their completion, retained work (writes, syncs) finishes with its result dropped. Close means close:
     * an installed waker that another thread installed belongs to another awaiter, and is woken so it reads
     * {@link ClosedException}; one the closing thread installed itself is released (Rust's drop). A completed result nobody took is disposed of
     * ({@link Results}): a connection, listener or blob in it is closed.
     *
     * @param id the request; stale ids are ignored
     * @param closer the closing thread (a fiber's virtual thread, or a plain thread), or null for a close sent
     *     from elsewhere
     * @param promoted observation moved to a forwarded channel first (a forward that reached a closing worker):
     *     the local waker is released, as a promotion releases it, and the channel's party learns the close
     */
    void close(WaiterId id, Thread closer, boolean promoted) {
        close(live(id), closer, promoted);
    }

    private void close(Slot slot, Thread closer, boolean promoted) {
        if (slot == null) {
            return;
        }
        Waker displaced = slot.observer.waker;
        slot.observer.waker = null;
        if (displaced != null) {
            if (promoted || (closer != null && slot.observer.wakerThread == closer)) {
                worker.deferRelease(displaced);
            } else {
                worker.deferWake(displaced);
            }
        }
        if (slot.observer.kind == Observer.Kind.FORWARDED && slot.observer.channel != null) {
            OneShot<Object> channel = slot.observer.channel;
            worker.defer(channel::closeSender);
        }
        slot.observer.kind = Observer.Kind.NONE;
        slot.observer.channel = null;
        switch (slot.state) {
            case COMPLETED -> retireDropping(slot);
            case TIMER -> retire(slot);
            case QUEUED -> {
                if (!slot.request.retained()) {
                    submitQueue.remove(slot);
                    immediateQueue.remove(slot);
                    slot.request.closedEarly();
                    retire(slot);
                }
            }
            case WAITING_PERMIT -> {
                // A sync is retained work: it still runs once it gets the permit.
            }
            case WAITING_LANE -> {
                if (!slot.request.retained()) {
                    laneWaiters.remove(slot);
                    slot.request.closedEarly();
                    retire(slot);
                }
                // Retained metadata (creating, removing) still runs when its turn comes.
            }
            case IN_FLIGHT -> {
                if (!slot.request.retained()) {
                    slot.request.closedEarly();
                    slot.state = State.CANCELLING;
                    cancelQueue.add(slot.userData());
                }
            }
            case CANCELLING, FREE -> { }
        }
    }

    /**
     * Submits queued work: immediate requests run now; ring requests and cancellations are staged while ring
     * slots remain.
     */
    void stage() {
        pumpPermits();
        pumpLanes();
        while (!immediateQueue.isEmpty()) {
            Slot slot = immediateQueue.pollFirst();
            try {
                slot.request.runImmediate();
            } catch (Throwable failure) {
                slot.request.force(Poll.failed(slot.request.internalFailure(failure)));
            }
            finish(slot);
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
        finish(slot);
    }

    /**
     * One completion from the ring.
     *
     * @param userData the submission's user data
     * @param result its result
     * @param flags CQE flags
     */
    @Override
    public void complete(long userData, int result, int flags) {
        if (WaiterId.isCancel(userData)) {
            cancelsInFlight--;
            return;
        }
        Slot slot = live(WaiterId.indexOf(userData), WaiterId.generationOf(userData));
        if (slot == null || (slot.state != State.IN_FLIGHT && slot.state != State.CANCELLING)) {
            throw new IllegalStateException("completion for " + WaiterId.fromUserData(userData)
                    + " that is not in flight");
        }
        inFlight--;
        submitQueue.completed(slot);
        if (slot.state == State.CANCELLING) {
            // The cancellation lost its race: what the kernel made (an accepted socket) is the request's to drop.
            try {
                slot.request.dropCompletion(result);
            } catch (Throwable failure) {
                worker.engine().fail(failure);
            }
            retire(slot);
            return;
        }
        boolean done;
        try {
            done = slot.request.complete(result);
        } catch (Throwable failure) {
            // Completing this one request threw (an out-of-memory copying what arrived, a bug): it fails, typed.
            slot.request.force(Poll.failed(slot.request.internalFailure(failure)));
            done = true;
        }
        worker.metrics().completed(slot.request.meterKind(), result, done);
        if (done && slot.heldPermit != null && slot.flushNumber > 0 && succeeded(slot.request)) {
            // Before the permit is given back (in finish): a worker nudged by that release reads it.
            slot.heldPermit.flushed(slot.flushNumber);
        }
        if (done) {
            finish(slot);
        } else {
            slot.state = State.QUEUED;
            submitQueue.requeue(slot);
        }
    }

    /**
     * Fires every timer whose deadline is not after {@code nowNanos}: the sleeps complete. Only sleeps have
     * timers; a deadline for other work is a {@code Clock.timeout} scope, whose timer is a sleep of its own.
     *
     * @param nowNanos the worker's clock
     */
    void fireTimers(long nowNanos) {
        while (!timers.isEmpty() && timers.peek().deadlineNanos <= nowNanos) {
            Slot slot = timers.poll().slot;
            slot.timer = null;
            if (slot.state != State.TIMER) {
                throw new IllegalStateException("a timer fired for " + slot.request.describe() + " in state "
                        + slot.state + ": only a pending sleep holds one (a bug in the engine)");
            }
            slot.request.force(Request.DONE);
            finish(slot);
        }
    }

    /**
     * The earliest timer deadline, or {@link Long#MAX_VALUE}.
     *
     * @return epoch nanoseconds
     */
    long nextDeadline() {
        TimerHeap.Timer head = timers.peek();
        return head == null ? Long.MAX_VALUE : head.deadlineNanos;
    }

    /**
     * Armed timers: one per pending sleep.
     *
     * @return the count
     */
    int armedTimers() {
        return timers.size();
    }

    /** The sleep's deadline no longer matters: it completed, was closed, or retired. */
    private void disarm(Slot slot) {
        if (slot.timer != null) {
            timers.remove(slot.timer);
            slot.timer = null;
        }
    }

    private static boolean succeeded(Request request) {
        return request.result() instanceof Poll.Ready<Object> ready && ready.failure() == null;
    }

    /**
     * Gives back everything the slot holds for its request, in one place for every way a request ends — finished
     * ({@link #finish}), retired unfinished ({@link #retire}: closed, its worker closing, its ring failed): its
     * sleep's timer, its place in its metadata lane, its durability permit. A sync that holds the permit and did
     * not succeed (failed before it reached the kernel, failed, refused by a poisoned open, its worker closed or
     * its ring failed under it) took the open's dirty flag without a flush that made the writes durable, so the
     * open is marked dirty again before the permit goes to the next sync. Idempotent.
     */
    private void letGo(Slot slot) {
        disarm(slot);
        leaveLane(slot);
        DurabilityPermit permit = slot.heldPermit;
        if (permit != null) {
            slot.heldPermit = null;
            if (slot.request == null || !succeeded(slot.request)) {
                permit.markDirty();
            }
            permit.release();
        }
    }

    /** The request is done: deliver its result to its observer. */
    private void finish(Slot slot) {
        letGo(slot);
        Poll<Object> result = slot.request.result();
        Observer observer = slot.observer;
        switch (observer.kind) {
            case LOCAL -> {
                slot.state = State.COMPLETED;
                slot.result = result;
                Waker waker = observer.waker;
                observer.waker = null;
                if (waker != null) {
                    worker.deferWake(waker);
                }
            }
            case FORWARDED, DETACHED -> {
                OneShot<Object> channel = observer.channel;
                retire(slot);
                worker.defer(() -> channel.send(result));
            }
            case NONE -> retireDropping(slot);
        }
    }

    /** Retires a slot whose result nobody will observe: a resource in it is closed, outside the borrow. */
    private void retireDropping(Slot slot) {
        Poll<Object> dropped = slot.state == State.COMPLETED ? slot.result
                : slot.request == null ? null : slot.request.result();
        retire(slot);
        if (Results.holdsResource(dropped)) {
            worker.defer(() -> Results.dispose(dropped));
        }
    }

    private void retire(Slot slot) {
        retire(slot, false);
    }

    /**
     * @param kernelMayHoldBuffers the ring failed while the kernel held this request: release its fd
     *     references but leave its buffers allocated ({@link Request#releaseAbandoned})
     */
    private void retire(Slot slot, boolean kernelMayHoldBuffers) {
        letGo(slot);
        Request request = slot.request;
        slot.request = null;
        slot.observer.clear();
        slot.result = null;
        slot.state = State.FREE;
        occupied--;
        if (slot.generation < WaiterId.MAX_GENERATION) {
            slot.generation++;
            free.addLast(slot);
        }
        // Else the index is retired for good: a new generation would wrap to 0, and an id of that old
        // generation could still be in a mailbox. 2^31 - 1 reuses of one index cost one slot object.
        // A request's cleanup may drop the last reference to an fd or run other owners' code: outside the borrow.
        if (kernelMayHoldBuffers) {
            worker.defer(() -> request.releaseAbandoned(ring));
        } else if (request.holdsResources()) {
            worker.deferRelease(request);
        }
    }

    /**
     * Worker closure: pending observers learn {@link ClosedException}, cancellable in-flight requests are
     * cancelled, queued ones retired. Retained work in flight still finishes; the caller then waits for every
     * in-flight completion before retiring the ring.
     */
    void closeAll() {
        for (Slot slot : slots) {
            if (slot.state == State.FREE) {
                continue;
            }
            Observer observer = slot.observer;
            if (observer.kind == Observer.Kind.FORWARDED || observer.kind == Observer.Kind.DETACHED) {
                if (slot.state != State.COMPLETED) {
                    OneShot<Object> channel = observer.channel;
                    worker.defer(channel::closeSender);
                    observer.kind = Observer.Kind.NONE;
                    observer.channel = null;
                }
            } else if (observer.kind == Observer.Kind.LOCAL && observer.waker != null) {
                Waker waker = observer.waker;
                observer.waker = null;
                worker.deferWake(waker);
            }
            switch (slot.state) {
                case QUEUED, TIMER, WAITING_PERMIT, WAITING_LANE -> {
                    laneWaiters.remove(slot);
                    submitQueue.remove(slot);
                    immediateQueue.remove(slot);
                    if (permitWaiters.remove(slot) && !hasPermitWaiter(slot.request.permit())) {
                        slot.request.permit().removeWaiter(worker);
                    }
                    if (slot.observer.kind == Observer.Kind.LOCAL) {
                        slot.request.force(Poll.failed(new ClosedException("worker " + worker.index()
                                + " closed before " + slot.request.describe() + " ran")));
                        letGo(slot);
                        slot.state = State.COMPLETED;
                        slot.result = slot.request.result();
                    } else {
                        retire(slot);
                    }
                }
                case IN_FLIGHT -> {
                    if (!slot.request.retained()) {
                        slot.request.closedEarly();
                        slot.state = State.CANCELLING;
                        slot.observer.kind = Observer.Kind.NONE;
                        slot.observer.waker = null;
                        cancelQueue.add(slot.userData());
                    }
                }
                default -> { }
            }
        }
    }

    /**
     * Retires every remaining slot after the last completion arrived: completed results nobody observed.
     */
    void retireAll() {
        for (Slot slot : slots) {
            if (slot.state != State.FREE) {
                if (slot.observer.waker != null) {
                    worker.deferRelease(slot.observer.waker);
                }
                retireDropping(slot);
            }
        }
    }

    /**
     * Retires every slot at once because the ring failed and will deliver nothing more ({@link Worker#abandon}):
     * observers learn {@link ClosedException}, and each request is released; one the kernel still held keeps
     * its buffer ({@link Request#releaseAbandoned}).
     */
    void abandonAll() {
        for (Slot slot : slots) {
            if (slot.state == State.FREE) {
                continue;
            }
            Observer observer = slot.observer;
            if (observer.waker != null) {
                Waker waker = observer.waker;
                observer.waker = null;
                worker.deferWake(waker);
            }
            if ((observer.kind == Observer.Kind.FORWARDED || observer.kind == Observer.Kind.DETACHED)
                    && slot.state != State.COMPLETED) {
                OneShot<Object> channel = observer.channel;
                worker.defer(channel::closeSender);
            }
            boolean heldByKernel = slot.state == State.IN_FLIGHT || slot.state == State.CANCELLING;
            if (slot.state == State.WAITING_PERMIT) {
                slot.request.permit().removeWaiter(worker);
            }
            // A permit granted and never handed back by a completion that will not come is given back by retire.
            Poll<Object> dropped = slot.state == State.COMPLETED ? slot.result : null;
            retire(slot, heldByKernel);
            if (Results.holdsResource(dropped)) {
                worker.defer(() -> Results.dispose(dropped));
            }
        }
        submitQueue.clear();
        immediateQueue.clear();
        permitWaiters.clear();
        laneWaiters.clear();
        cancelQueue.clear();
        inFlight = 0;
        cancelsInFlight = 0;
    }

    /**
     * Whether any request or cancellation is still in flight (the kernel may still use their buffers).
     *
     * @return true while something is in flight
     */
    boolean busy() {
        return inFlight > 0 || cancelsInFlight > 0 || !cancelQueue.isEmpty();
    }

    /**
     * Whether a request is in the kernel or queued for it (not waiting on a timer or the observer).
     *
     * @return true if the ring has work
     */
    boolean hasRingWork() {
        return inFlight > 0 || cancelsInFlight > 0 || !submitQueue.isEmpty() || !cancelQueue.isEmpty()
                || !immediateQueue.isEmpty() || !laneWaiters.isEmpty();
    }
}
