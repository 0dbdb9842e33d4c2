package dev.lockstep.engine.request;

import dev.lockstep.Poll;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.MetadataLane;

/**
 * One entry of a worker's request slab ({@link Driver}): the request it holds now, its state, its observer and
 * what it holds for the request (a timer, a durability permit, a place in a metadata lane). Reused for request
 * after request; a {@link #generation} tells its uses apart. Only the owning worker touches it, inside its
 * critical section.
 */
final class Slot {
    /** Where a request is on its way through the driver; the {@link Driver} class doc says what each means. */
    enum State { FREE, QUEUED, WAITING_PERMIT, WAITING_LANE, IN_FLIGHT, TIMER, COMPLETED, CANCELLING }

    final int index;
    int generation;
    State state = State.FREE;
    Request request;
    /** The slot's one observer, reset for each request it admits (see {@link Observer}). */
    final Observer observer = new Observer();
    Poll<Object> result;
    /** The armed timer of a sleep, disarmed when the slot lets go ({@code RequestEnds.letGo}). */
    TimerHeap.Timer timer;
    /**
     * The durability permit this sync holds: set when {@link AdmissionWaits#pumpPermits} grants it, given back
     * only by {@code RequestEnds.letGo}, whichever way the sync ends.
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
