package dev.lockstep.engine.request;

import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.MetadataLane;
import dev.lockstep.engine.worker.Worker;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The requests of one worker's {@link Driver} that are admitted but may not be queued yet: syncs waiting for their
 * open's {@link DurabilityPermit} ({@link Slot.State#WAITING_PERMIT}) and metadata requests waiting for their turn
 * in their {@link MetadataLane} ({@link Slot.State#WAITING_LANE}), each in admission order. A pump moves those
 * whose wait is over on to the {@link RingExchange}'s queues, or finishes them. Only the owning worker touches it,
 * inside its critical section.
 */
final class AdmissionWaits {
    private final RingExchange exchange;
    private final RequestEnds ends;
    private final Worker worker;
    private final List<Slot> permitWaiters = new ArrayList<>();
    /** Metadata requests waiting for their turn in their lane, in admission order. */
    private final List<Slot> laneWaiters = new ArrayList<>();

    AdmissionWaits(RingExchange exchange, RequestEnds ends, Worker worker) {
        this.exchange = exchange;
        this.ends = ends;
        this.worker = worker;
    }

    /**
     * Requests waiting, for a permit or for their lane. Read by metrics from any thread without synchronization
     * ({@link Driver#queued()}): an {@code ArrayList}'s size is a plain int field, and reading it never touches
     * the array.
     */
    int size() {
        return permitWaiters.size() + laneWaiters.size();
    }

    boolean hasLaneWaiters() {
        return !laneWaiters.isEmpty();
    }

    /**
     * A sync just admitted waits for its open's permit, ticketed with the next flush of its open: its ticket is
     * taken here, after every write it must make durable completed. The permit is tried at once.
     */
    void waitForPermit(Slot slot) {
        joinWithoutPump(slot);
        pumpPermits();
    }

    /**
     * A {@code SYNC} write whose bytes were just written ({@link Request#joinGroupSync}) waits for its open's
     * permit as a sync admitted now would, but the permit is not tried here: the caller's next {@link #pumpPermits}
     * does, so every write joining in one completion batch holds its ticket before any of them starts a flush, and
     * the first flush covers them all. The worker is registered as a waiter first, so a release between now and
     * that pump nudges it (see {@link DurabilityPermit}).
     */
    void joinWithoutPump(Slot slot) {
        DurabilityPermit permit = slot.request.permit();
        slot.flushTicket = permit.ticket();
        slot.flushNumber = 0;
        slot.state = Slot.State.WAITING_PERMIT;
        permitWaiters.add(slot);
        permit.addWaiter(worker);
    }

    /** A metadata request just admitted joins its lane and waits for its turn. */
    void waitForLane(Slot slot) {
        slot.state = Slot.State.WAITING_LANE;
        slot.laneEntry = slot.request.lane().join(slot.request, worker);
        laneWaiters.add(slot);
        pumpLanes();
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
                slot.request.coveredByFlush();
                ends.finish(slot);
            } else if (slot.request.completeWithoutKernel()) {
                ends.finish(slot);
            } else {
                slot.flushNumber = permit.startFlush();
                exchange.enqueue(slot);
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
                exchange.enqueue(slot);
            }
        }
    }

    /** The request's outcome is known: the next request of its lane may run. Idempotent. */
    static void leaveLane(Slot slot) {
        if (slot.laneEntry != null) {
            slot.request.lane().leave(slot.laneEntry);
            slot.laneEntry = null;
        }
    }

    /** A metadata request closed while it waited for its lane stops waiting; its retirement leaves the lane. */
    void stopWaitingForLane(Slot slot) {
        laneWaiters.remove(slot);
    }

    /**
     * The slot stops waiting, whatever it waited for (its worker is closing); a permit no sync of this worker
     * waits for any more stops nudging it.
     */
    void stopWaiting(Slot slot) {
        laneWaiters.remove(slot);
        if (permitWaiters.remove(slot) && !hasPermitWaiter(slot.request.permit())) {
            slot.request.permit().removeWaiter(worker);
        }
    }

    /** Nothing waits any more: the ring failed ({@link Driver#abandonAll}). */
    void clear() {
        permitWaiters.clear();
        laneWaiters.clear();
    }

    private boolean hasPermitWaiter(DurabilityPermit permit) {
        for (Slot slot : permitWaiters) {
            if (slot.request.permit() == permit) {
                return true;
            }
        }
        return false;
    }
}
