package dev.lockstep.engine.request;

import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.request.Slot.State;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Ring;

/**
 * How a request of one worker's {@link Driver} leaves its slot: finished ({@link #finish}: its result goes to its
 * observer) or retired ({@link #retire}: the slot is free again), and on either way out what the slot held for it
 * given back ({@link #letGo}). Only the owning worker calls it, inside its critical section; nothing here calls
 * user code: wakes, channel sends and the requests' releases are deferred to the worker's deferred queue, which
 * runs them after the borrow ends.
 */
final class RequestEnds {
    private final Worker worker;
    private final Ring ring;
    private final SlotTable slots;
    private final TimerHeap timers;

    RequestEnds(Worker worker, Ring ring, SlotTable slots, TimerHeap timers) {
        this.worker = worker;
        this.ring = ring;
        this.slots = slots;
        this.timers = timers;
    }

    /** The sleep's deadline no longer matters: it completed, was closed, or retired. */
    private void disarm(Slot slot) {
        if (slot.timer != null) {
            timers.remove(slot.timer);
            slot.timer = null;
        }
    }

    /** Whether the request finished with a value, not a failure. */
    static boolean succeeded(Request request) {
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
    void letGo(Slot slot) {
        disarm(slot);
        AdmissionWaits.leaveLane(slot);
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
    void finish(Slot slot) {
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
                ResultChannel<Object> channel = observer.channel;
                retire(slot);
                worker.defer(() -> channel.send(result));
            }
            case NONE -> retireDropping(slot);
        }
    }

    /** Retires a slot whose result nobody will observe: a resource in it is closed, outside the borrow. */
    void retireDropping(Slot slot) {
        Poll<Object> dropped = slot.state == State.COMPLETED ? slot.result
                : slot.request == null ? null : slot.request.result();
        retire(slot);
        if (Results.holdsResource(dropped)) {
            worker.defer(() -> Results.dispose(dropped));
        }
    }

    /** Retires the slot: its request is released (outside the borrow) and its index may be reused. */
    void retire(Slot slot) {
        retire(slot, false);
    }

    /**
     * {@link #retire(Slot)}, for a ring that failed ({@link Driver#abandonAll}) when {@code kernelMayHoldBuffers}.
     *
     * @param slot the slot
     * @param kernelMayHoldBuffers the ring failed while the kernel held this request: release its fd
     *     references but leave its buffers allocated ({@link Request#releaseAbandoned})
     */
    void retire(Slot slot, boolean kernelMayHoldBuffers) {
        letGo(slot);
        Request request = slot.request;
        slot.request = null;
        slot.observer.clear();
        slot.result = null;
        slot.state = State.FREE;
        slots.release(slot);
        // A request's cleanup may drop the last reference to an fd or run other owners' code: outside the borrow.
        if (kernelMayHoldBuffers) {
            worker.defer(() -> request.releaseAbandoned(ring));
        } else if (request.holdsResources()) {
            worker.deferRelease(request);
        }
    }
}
