package dev.lockstep.engine.request;

/**
 * A worker's queued ring requests, one FIFO per {@link Request.Budget}, and the in-flight budgets that keep
 * every request live whatever its peers do.
 *
 * <h2>The liveness model</h2>
 * Some requests finish on their own — a read, a write, an fsync ends when the device answers — and some only
 * when a peer acts: a receive or an accept can stay in the kernel for ever, and a send stays while the peer does
 * not read. A request that waits on a peer must never wait for an entry behind another such request: with any
 * bound on them, a worker whose bound is taken by idle connections (clients that keep a connection open and say
 * nothing) would accept no new connection and receive on no other, and two peers whose sends queue behind their
 * own receives would wait on each other for ever. So, on a ring of {@code E >= 4} entries:
 * <ul>
 *   <li>{@link Request.Budget#INBOUND} (receives, accepts) and {@link Request.Budget#OUTBOUND} (sends,
 *       connects): no bound; each is staged as soon as the submission queue has room, and stays in flight for
 *       as long as its peer makes it;
 *   <li>{@link Request.Budget#STORAGE} (everything else): at most {@code E} in flight, the back-pressure that
 *       keeps a burst of writes from handing the kernel's worker threads more than the ring's size at once.
 *       Each of them ends by itself, so one waiting for the budget waits only for requests that end.
 * </ul>
 * Requests in flight may then outnumber the completion queue's {@code 2E} entries; a completion that finds it
 * full waits in the kernel's overflow backlog until the ring takes it ({@code IORING_FEAT_NODROP}, Linux 5.5;
 * runtime-uring needs 5.11), so none is lost. What one idle connection costs is its request and its buffer.
 *
 * <p>Rings smaller than 4 entries (for tests that need a full ring: the seed's cases use 1) keep the model the
 * seed was written for: every request, of any budget, takes one of the {@code E} entries in admission order, so a
 * receive can hold the only entry while others queue behind it. A real worker never uses such a ring.
 *
 * <p>Within a budget, requests are staged in admission order; across budgets, the oldest stageable request
 * goes first, so while no bound binds the order is exactly admission order (the simulator's digests depend
 * on it). A request resubmitted after a short transfer goes back to the head of its budget's queue.
 *
 * <p>The queues hold slot indices, not {@link Slot} references: queueing a request then stores no reference
 * into a long-lived array, which would cost the collector's write barrier on every admission. A queued slot is
 * live and {@link Slot.State#QUEUED} until it leaves its queue (staged, removed when closed, or every queue cleared
 * before the slots retire when the ring failed), so its index names it.
 *
 * <p>Confined to the owning worker, touched only inside its critical section, like the {@link Driver}.
 */
final class SubmitQueues {
    private static final Request.Budget[] BUDGETS = Request.Budget.values();

    /** The slots whose indices the queues hold. */
    private final SlotTable slots;
    /** Queued slot indices per budget, indexed by ordinal. */
    private final IndexFifo[] queues = new IndexFifo[BUDGETS.length];
    /** In flight per budget, indexed by ordinal. */
    final int[] inFlight = new int[BUDGETS.length];
    /** The limit per budget, indexed by ordinal. */
    final int[] limit = new int[BUDGETS.length];
    /**
     * Requests in all the queues: every service turn and every "is there work" check asks for a stageable
     * request, and most of the time there is none, which this answers without looking at a queue.
     */
    private int queued;

    /**
     * The total bound on requests in flight: the ring's entries below {@link Driver#SMALLEST_UNSHARED_RING}, else
     * none.
     */
    final int totalLimit;

    SubmitQueues(int ringEntries, SlotTable slots) {
        this.slots = slots;
        for (int i = 0; i < queues.length; i++) {
            queues[i] = new IndexFifo();
        }
        boolean shared = ringEntries < Driver.SMALLEST_UNSHARED_RING;
        int network = shared ? ringEntries : Integer.MAX_VALUE;
        limit[Request.Budget.INBOUND.ordinal()] = network;
        limit[Request.Budget.OUTBOUND.ordinal()] = network;
        limit[Request.Budget.STORAGE.ordinal()] = ringEntries;
        totalLimit = shared ? ringEntries : Integer.MAX_VALUE;
    }

    void add(Slot slot) {
        queues[slot.budget.ordinal()].addLast(slot.index);
        queued++;
    }

    /** A request that must be submitted again (a short transfer): first in its budget's queue. */
    void requeue(Slot slot) {
        queues[slot.budget.ordinal()].addFirst(slot.index);
        queued++;
    }

    void remove(Slot slot) {
        if (queues[slot.budget.ordinal()].remove(slot.index)) {
            queued--;
        }
    }

    /**
     * The oldest queued request whose budget has room, left queued.
     *
     * @return the slot, or null if none can be staged now
     */
    Slot peekStageable() {
        if (queued == 0) {
            return null;
        }
        Slot oldest = null;
        for (int i = 0; i < queues.length; i++) {
            int headIndex = queues[i].peekFirst();
            if (headIndex >= 0 && inFlight[i] < limit[i]) {
                Slot head = slots.at(headIndex);
                assert head.state == Slot.State.QUEUED : "the " + BUDGETS[i] + " queue's head is slot " + headIndex
                        + ", which is " + head.state + ", not queued";
                if (oldest == null || head.admission < oldest.admission) {
                    oldest = head;
                }
            }
        }
        return oldest;
    }

    boolean hasStageable() {
        return peekStageable() != null;
    }

    /** The head of its queue was staged: it draws on its budget until its completion. */
    void staged(Slot slot) {
        int head = queues[slot.budget.ordinal()].pollFirst();
        assert head == slot.index : "staged " + slot.index + " but the head was " + (head < 0 ? "none" : head);
        queued--;
        inFlight[slot.budget.ordinal()]++;
    }

    /** A completion of a staged request arrived: its entry goes back to its budget. */
    void completed(Slot slot) {
        inFlight[slot.budget.ordinal()]--;
    }

    /** Requests in all the queues; also read by a metrics thread, racily, through {@link Driver#queued()}. */
    int queued() {
        return queued;
    }

    boolean isEmpty() {
        return queued == 0;
    }

    /** Forgets everything: the ring failed and will complete nothing more. */
    void clear() {
        for (int i = 0; i < queues.length; i++) {
            queues[i].clear();
            inFlight[i] = 0;
        }
        queued = 0;
    }
}
