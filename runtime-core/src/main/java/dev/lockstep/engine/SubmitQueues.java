package dev.lockstep.engine;

import java.util.ArrayDeque;

/**
 * A worker's queued ring requests, one FIFO per {@link Request.Budget}, and the in-flight budgets that keep
 * storage alive beside requests that wait on peers.
 *
 * <h2>The liveness model</h2>
 * A ring of {@code E} entries has at most {@code E} requests in flight (and at most {@code E} cancellations),
 * so its completion queue of {@code 2E} never overflows. Some requests finish on their own — a read, a write,
 * an fsync ends when the device answers — and some only when a peer acts: a receive or an accept can stay in
 * the kernel for ever, and a send stays while the peer does not read. If those could take every entry, a
 * worker with {@code E} idle receives would never submit a write, and two peers whose sends queue behind
 * their own receives would wait on each other for ever. So each budget has a limit of its own:
 * <ul>
 *   <li>{@link Request.Budget#INBOUND} (receives, accepts): at most {@code max(1, E/2)} in flight;
 *   <li>{@link Request.Budget#OUTBOUND} (sends, connects): at most {@code max(1, E/4)} in flight;
 *   <li>{@link Request.Budget#STORAGE} (everything else): up to {@code E}, whatever the others leave.
 * </ul>
 * With {@code E >= 4}, requests that wait on peers hold at most {@code E/2 + E/4} entries, so at least
 * {@code E/4} entries stay for storage, and sends never queue behind receives: a send only ever waits for
 * other sends or for storage requests, which end by themselves. Worked example, a ring of 8: eight idle
 * receives put 4 in the kernel and queue 4; a send still takes one of its 2 entries, and a 1-byte write one of
 * the 2 the network cannot take, at once. Rings smaller than 4 (useful in tests) cannot separate all three:
 * with {@code E = 1} the one entry is shared in admission order, as before budgets existed.
 *
 * <p>Within a budget, requests are staged in admission order; across budgets, the oldest stageable request
 * goes first, so while no limit binds the order is exactly admission order (the simulator's digests depend
 * on it). A request resubmitted after a short transfer goes back to the head of its budget's queue.
 *
 * <p>Confined to the owning worker, touched only inside its critical section, like the {@link Driver}.
 */
final class SubmitQueues {
    private static final Request.Budget[] BUDGETS = Request.Budget.values();

    @SuppressWarnings("unchecked")
    private final ArrayDeque<Driver.Slot>[] queues = new ArrayDeque[BUDGETS.length];
    /** In flight per budget, indexed by ordinal. */
    final int[] inFlight = new int[BUDGETS.length];
    /** The limit per budget, indexed by ordinal. */
    final int[] limit = new int[BUDGETS.length];
    /**
     * Requests in all the queues: every service turn and every "is there work" check asks for a stageable
     * request, and most of the time there is none, which this answers without looking at a queue.
     */
    private int queued;

    SubmitQueues(int ringEntries) {
        for (int i = 0; i < queues.length; i++) {
            queues[i] = new ArrayDeque<>();
        }
        limit[Request.Budget.INBOUND.ordinal()] = Math.max(1, ringEntries / 2);
        limit[Request.Budget.OUTBOUND.ordinal()] = Math.max(1, ringEntries / 4);
        limit[Request.Budget.STORAGE.ordinal()] = ringEntries;
    }

    void add(Driver.Slot slot) {
        queues[slot.budget.ordinal()].addLast(slot);
        queued++;
    }

    /** A request that must be submitted again (a short transfer): first in its budget's queue. */
    void requeue(Driver.Slot slot) {
        queues[slot.budget.ordinal()].addFirst(slot);
        queued++;
    }

    void remove(Driver.Slot slot) {
        if (queues[slot.budget.ordinal()].remove(slot)) {
            queued--;
        }
    }

    /**
     * The oldest queued request whose budget has room, left queued.
     *
     * @return the slot, or null if none can be staged now
     */
    Driver.Slot peekStageable() {
        if (queued == 0) {
            return null;
        }
        Driver.Slot oldest = null;
        for (int i = 0; i < queues.length; i++) {
            Driver.Slot head = queues[i].peekFirst();
            if (head != null && inFlight[i] < limit[i] && (oldest == null || head.admission < oldest.admission)) {
                oldest = head;
            }
        }
        return oldest;
    }

    boolean hasStageable() {
        return peekStageable() != null;
    }

    /** The head of its queue was staged: it draws on its budget until its completion. */
    void staged(Driver.Slot slot) {
        Driver.Slot head = queues[slot.budget.ordinal()].pollFirst();
        assert head == slot : "staged " + slot.index + " but the head was " + (head == null ? "none" : head.index);
        queued--;
        inFlight[slot.budget.ordinal()]++;
    }

    /** A completion of a staged request arrived: its entry goes back to its budget. */
    void completed(Driver.Slot slot) {
        inFlight[slot.budget.ordinal()]--;
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
