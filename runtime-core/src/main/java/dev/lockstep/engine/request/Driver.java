package dev.lockstep.engine.request;

import dev.lockstep.ClosedException;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.MetadataLane;
import dev.lockstep.engine.request.Slot.State;
import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.engine.worker.Mailbox;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Ring;

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
 * in one place, {@link RequestEnds#letGo}, which every way out of a request goes through (its finish or its
 * retirement).
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
 * <h2>Parts</h2>
 * Every transition between the states above is made on one {@link Slot}; the driver admits, observes, closes
 * and fires timers, and hands the rest to its parts, each confined to the worker as the driver is:
 * {@link SlotTable} (the slots and their generations), {@link AdmissionWaits} (waits for a permit or a lane),
 * {@link RingExchange} (the queues to the ring, staging and completions) and {@link RequestEnds} (finishing,
 * retiring, and giving back what a slot held). The parts that have no transitions of their own live apart too
 * ({@link SubmitQueues}, {@link TimerHeap}, {@link DurabilityPermit}, {@link MetadataLane}, {@link Observer}).
 */
public final class Driver implements CompletionSink {
    /**
     * The smallest ring whose requests that wait on peers are not bounded by its entries; a smaller ring (for
     * tests) shares its entries among every request in admission order. See {@link SubmitQueues}; the simulated
     * ring checks the engine against the same line.
     */
    public static final int SMALLEST_UNSHARED_RING = 4;

    private final Worker worker;
    private final SlotTable slots = new SlotTable();
    private final TimerHeap timers = new TimerHeap();
    private final RequestEnds ends;
    private final RingExchange exchange;
    private final AdmissionWaits waits;
    private long admissions;

    public Driver(Worker worker, Ring ring) {
        this.worker = worker;
        this.ends = new RequestEnds(worker, ring, slots, timers);
        this.exchange = new RingExchange(worker, ring, slots, ends);
        this.waits = new AdmissionWaits(exchange, ends, worker);
    }

    /**
     * Unfinished logical requests: admitted and not yet retired, whatever their state.
     *
     * @return the count
     */
    public int size() {
        return slots.occupied();
    }

    /**
     * Requests submitted to the ring and not yet completed. Read by metrics from any thread without
     * synchronization ({@link RingExchange#inFlight()} says why that is sound).
     *
     * @return the count: storage requests at most the ring's entries, network requests any number (see
     *     {@link SubmitQueues})
     */
    public int inFlight() {
        return exchange.inFlight();
    }

    /**
     * Requests admitted and waiting: for the ring, for a durability permit, or for their metadata lane. Read by
     * metrics from any thread without synchronization, as {@link #inFlight()}: each of the three counts is an int
     * the worker wrote (an {@code ArrayList}'s size is a plain int field; reading it never touches the array), so
     * the sum is never negative, though its parts may be of slightly different moments.
     *
     * @return the count
     */
    public int queued() {
        return exchange.queued() + waits.size();
    }

    public boolean hasQueuedWork() {
        return exchange.hasQueuedWork();
    }

    /**
     * Ring requests of one budget in flight now.
     *
     * @param budget the budget
     * @return the count, at most {@link #budgetLimit}
     */
    public int inFlight(Request.Budget budget) {
        return exchange.inFlight(budget);
    }

    /**
     * The most ring requests of one budget that may be in flight at once on this worker (the liveness model of
     * {@link SubmitQueues}).
     *
     * @param budget the budget
     * @return the limit, {@link Integer#MAX_VALUE} for none (the network's budgets on a ring of 4 entries or more)
     */
    public int budgetLimit(Request.Budget budget) {
        return exchange.budgetLimit(budget);
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
    public long admit(Request request, ResultChannel<Object> detachedChannel, long nowNanos) {
        Slot slot = slots.occupy();
        slot.request = request;
        slot.observer.observe(detachedChannel);
        slot.result = null;
        slot.budget = request.kind() == Request.Kind.RING ? request.budget() : Request.Budget.STORAGE;
        slot.admission = ++admissions;
        if (request instanceof TimerRequest sleep) {
            slot.state = State.TIMER;
            if (sleep.deadlineNanos() <= nowNanos) {
                request.force(Request.DONE);
                ends.finish(slot);
            } else {
                slot.timer = timers.add(sleep.deadlineNanos(), slot);
            }
            return slot.userData();
        }
        if (request.permit() != null) {
            waits.waitForPermit(slot);
        } else if (request.lane() != null) {
            waits.waitForLane(slot);
        } else {
            exchange.enqueue(slot);
        }
        return slot.userData();
    }

    /**
     * Test hook: ages every free slot to {@code generation}, as if it had been reused that many times.
     *
     * @param generation the generation, at most {@link WaiterId#MAX_GENERATION}
     */
    void ageFreeSlots(int generation) {
        slots.ageFreeSlots(generation);
    }

    /**
     * The result of a completed request, consumed and retired; null while pending or if stale.
     *
     * @param id the request
     * @return the result, or null
     */
    public Poll<Object> take(WaiterId id) {
        return take(id.userData());
    }

    /** {@link #take(WaiterId)} by the id's user data. */
    public Poll<Object> take(long key) {
        Slot slot = slots.live(key);
        if (slot == null || slot.state != State.COMPLETED) {
            return null;
        }
        Poll<Object> result = slot.result;
        ends.retire(slot);
        return result;
    }

    /**
     * Whether the id names a live request.
     *
     * @param id the request
     * @return true if admitted and not retired
     */
    public boolean isLive(WaiterId id) {
        return isLive(id.userData());
    }

    /** {@link #isLive(WaiterId)} by the id's user data. */
    public boolean isLive(long key) {
        return slots.live(key) != null;
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
        Slot slot = slots.live(key);
        return slot != null && slot.observer.kind != Observer.Kind.NONE;
    }

    /** What an inline turn can do for an awaited request ({@link #inlineTurnFor}). */
    public enum InlineTurn {
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
    public InlineTurn inlineTurnFor(long key) {
        Slot slot = slots.live(key);
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
        Slot slot = slots.live(key);
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
        Slot slot = slots.live(key);
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
    public void forward(WaiterId id, ResultChannel<Object> channel) {
        Slot slot = slots.live(id);
        if (slot == null) {
            worker.defer(channel::closeSender);
            return;
        }
        if (slot.state == State.COMPLETED) {
            Poll<Object> result = slot.result;
            ends.retire(slot);
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
    public void close(WaiterId id) {
        close(id, null, false);
    }

    /**
     * {@link #close(WaiterId, Thread, boolean)} without a promotion.
     *
     * @param id the request; stale ids are ignored
     * @param closer the closing thread, or null for a close sent from elsewhere
     */
    public void close(WaiterId id, Thread closer) {
        close(id, closer, false);
    }

    /** {@link #close(WaiterId, Thread)} by the id's user data. */
    public void close(long key, Thread closer) {
        close(slots.live(key), closer, false);
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
    public void close(WaiterId id, Thread closer, boolean promoted) {
        close(slots.live(id), closer, promoted);
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
            ResultChannel<Object> channel = slot.observer.channel;
            worker.defer(channel::closeSender);
        }
        slot.observer.kind = Observer.Kind.NONE;
        slot.observer.channel = null;
        switch (slot.state) {
            case COMPLETED -> ends.retireDropping(slot);
            case TIMER -> ends.retire(slot);
            case QUEUED -> {
                if (!slot.request.retained()) {
                    exchange.dequeue(slot);
                    slot.request.closedEarly();
                    ends.retire(slot);
                }
            }
            case WAITING_PERMIT -> {
                // A sync is retained work: it still runs once it gets the permit.
            }
            case WAITING_LANE -> {
                if (!slot.request.retained()) {
                    waits.stopWaitingForLane(slot);
                    slot.request.closedEarly();
                    ends.retire(slot);
                }
                // Retained metadata (creating, removing) still runs when its turn comes.
            }
            case IN_FLIGHT -> {
                if (!slot.request.retained()) {
                    slot.request.closedEarly();
                    exchange.cancel(slot);
                }
            }
            case CANCELLING, FREE -> { }
        }
    }

    /**
     * Submits queued work: syncs and metadata requests whose wait is over are queued; immediate requests run now;
     * ring requests and cancellations are staged while ring slots remain.
     */
    public void stage() {
        waits.pumpPermits();
        waits.pumpLanes();
        exchange.stage();
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
        Slot joining = exchange.complete(userData, result, flags);
        if (joining != null) {
            // A SYNC write whose bytes are all in the page cache now: it becomes a sync of its open admitted at
            // this moment, so the flush that covers it is one issued after its last byte was written. It does not
            // try the permit here: the first of a batch to try it would start a flush covering only itself and
            // those before it, and the rest of the batch would wait for the next flush. The next stage() tries it,
            // and nothing can wait before that stage: complete() is only the ring's sink, called by Ring.enter on
            // the worker's own thread inside its borrow, and both callers of enter (ServiceTurn's second half and
            // InlineTurns.turn) call stage() after it in the same borrow. That stage takes a free permit and
            // queues and stages the flush before the borrow ends, and the worker's next enter submits it before it
            // may wait, so the flush's completion wakes the worker; a permit held by another request of the open (on
            // this worker or another) nudges this worker when released, as joinWithoutPump registered it first.
            waits.joinWithoutPump(joining);
        }
    }

    /**
     * Fires every timer whose deadline is not after {@code nowNanos}: the sleeps complete. Only sleeps have
     * timers; a deadline for other work is a {@code Clock.timeout} scope, whose timer is a sleep of its own.
     *
     * @param nowNanos the worker's clock
     */
    public void fireTimers(long nowNanos) {
        while (!timers.isEmpty() && timers.peek().deadlineNanos <= nowNanos) {
            Slot slot = timers.poll().slot;
            slot.timer = null;
            if (slot.state != State.TIMER) {
                throw new IllegalStateException("a timer fired for " + slot.request.describe() + " in state "
                        + slot.state + ": only a pending sleep holds one (a bug in the engine)");
            }
            slot.request.force(Request.DONE);
            ends.finish(slot);
        }
    }

    /**
     * The earliest timer deadline, or {@link Long#MAX_VALUE}.
     *
     * @return epoch nanoseconds
     */
    public long nextDeadline() {
        TimerHeap.Timer head = timers.peek();
        return head == null ? Long.MAX_VALUE : head.deadlineNanos;
    }

    /**
     * Armed timers: one per pending sleep.
     *
     * @return the count
     */
    public int armedTimers() {
        return timers.size();
    }

    /**
     * Worker closure: pending observers learn {@link ClosedException}, cancellable in-flight requests are
     * cancelled, queued ones retired. Retained work in flight still finishes; the caller then waits for every
     * in-flight completion before retiring the ring.
     */
    public void closeAll() {
        for (Slot slot : slots.all()) {
            if (slot.state == State.FREE) {
                continue;
            }
            Observer observer = slot.observer;
            if (observer.kind == Observer.Kind.FORWARDED || observer.kind == Observer.Kind.DETACHED) {
                if (slot.state != State.COMPLETED) {
                    ResultChannel<Object> channel = observer.channel;
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
                    waits.stopWaiting(slot);
                    exchange.dequeue(slot);
                    if (slot.observer.kind == Observer.Kind.LOCAL) {
                        slot.request.force(Poll.failed(new ClosedException("worker " + worker.index()
                                + " closed before " + slot.request.describe() + " ran")));
                        ends.letGo(slot);
                        slot.state = State.COMPLETED;
                        slot.result = slot.request.result();
                    } else {
                        ends.retire(slot);
                    }
                }
                case IN_FLIGHT -> {
                    if (!slot.request.retained()) {
                        slot.request.closedEarly();
                        slot.observer.kind = Observer.Kind.NONE;
                        slot.observer.waker = null;
                        exchange.cancel(slot);
                    }
                }
                default -> { }
            }
        }
    }

    /**
     * Retires every remaining slot after the last completion arrived: completed results nobody observed.
     */
    public void retireAll() {
        for (Slot slot : slots.all()) {
            if (slot.state != State.FREE) {
                if (slot.observer.waker != null) {
                    worker.deferRelease(slot.observer.waker);
                }
                ends.retireDropping(slot);
            }
        }
    }

    /**
     * Retires every slot at once because the ring failed and will deliver nothing more ({@link Worker#abandon}):
     * observers learn {@link ClosedException}, and each request is released; one the kernel still held keeps
     * its buffer ({@link Request#releaseAbandoned}).
     */
    public void abandonAll() {
        // The queues first: they hold the indices of QUEUED slots, and once the loop below released a slot its index
        // would name a free slot (or, reused, another request) for as long as it stayed queued. Nothing in the loop
        // reads the queues or the waits: it changes slots, permits and lanes, and defers every wake and release.
        exchange.clear();
        waits.clear();
        for (Slot slot : slots.all()) {
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
                ResultChannel<Object> channel = observer.channel;
                worker.defer(channel::closeSender);
            }
            boolean heldByKernel = slot.state == State.IN_FLIGHT || slot.state == State.CANCELLING;
            if (slot.state == State.WAITING_PERMIT) {
                slot.request.permit().removeWaiter(worker);
            }
            // A permit granted and never handed back by a completion that will not come is given back by retire.
            Poll<Object> dropped = slot.state == State.COMPLETED ? slot.result : null;
            ends.retire(slot, heldByKernel);
            if (Results.holdsResource(dropped)) {
                worker.defer(() -> Results.dispose(dropped));
            }
        }
    }

    /**
     * Whether any request or cancellation is still in flight (the kernel may still use their buffers).
     *
     * @return true while something is in flight
     */
    boolean busy() {
        return exchange.busy();
    }

    /**
     * Whether a request is in the kernel or queued for it (not waiting on a timer or the observer).
     *
     * @return true if the ring has work
     */
    public boolean hasRingWork() {
        return exchange.hasRingWork() || waits.hasLaneWaiters();
    }
}
