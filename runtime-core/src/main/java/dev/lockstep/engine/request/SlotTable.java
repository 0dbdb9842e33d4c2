package dev.lockstep.engine.request;

import java.util.ArrayList;
import java.util.List;

/**
 * The slots of one worker's {@link Driver}, found by {@link WaiterId}: which are live, which are free for the next
 * admission, and the generations that keep a stale id from reaching a slot's later request. Only the owning
 * worker touches it, inside its critical section.
 */
final class SlotTable {
    private final List<Slot> slots = new ArrayList<>();
    /**
     * Released indices, FIFO: the index released longest ago is reused first, so a stale id (a queued Cancel, a
     * late message) meets a new generation of its slot as rarely as possible. An index whose generation is
     * used up is never released again (see {@link #release}), so a generation cannot wrap into a live slot.
     */
    private final IndexFifo free = new IndexFifo();
    private int occupied;

    /** A slot for a new admission: the free one released longest ago, or a new one. */
    Slot occupy() {
        int index = free.pollFirst();
        Slot slot;
        if (index < 0) {
            slot = new Slot(slots.size());
            slots.add(slot);
        } else {
            slot = slots.get(index);
        }
        assert slot.state == Slot.State.FREE : "slot " + slot.index + " occupied while " + slot.state;
        occupied++;
        return slot;
    }

    /** The slot's request retired (its state is {@link Slot.State#FREE} again): its index may be reused. */
    void release(Slot slot) {
        assert slot.state == Slot.State.FREE && occupied > 0 : "slot " + slot.index + " released while "
                + slot.state + ", with " + occupied + " occupied";
        occupied--;
        if (slot.generation < WaiterId.MAX_GENERATION) {
            slot.generation++;
            free.addLast(slot.index);
        }
        // Else the index is retired for good: a new generation would wrap to 0, and an id of that old
        // generation could still be in a mailbox. 2^31 - 1 reuses of one index cost one slot object.
    }

    /** Slots holding a request: admitted and not yet retired. */
    int occupied() {
        return occupied;
    }

    /** Every slot ever made, free or not, in index order. */
    List<Slot> all() {
        return slots;
    }

    /** The slot at {@code index}, which an admission made: free or not. */
    Slot at(int index) {
        return slots.get(index);
    }

    Slot live(WaiterId id) {
        return live(id.index(), id.generation());
    }

    Slot live(long key) {
        return live(WaiterId.indexOf(key), WaiterId.generationOf(key));
    }

    /** The slot of the id ({@code index}, {@code generation}) while its request is live; null if stale. */
    Slot live(int index, int generation) {
        if (index < 0 || index >= slots.size()) {
            return null;
        }
        Slot slot = slots.get(index);
        return slot.state != Slot.State.FREE && slot.generation == generation ? slot : null;
    }

    /** Test hook: ages every free slot to {@code generation}, as if it had been reused that many times. */
    void ageFreeSlots(int generation) {
        for (int index : free.toArray()) {
            slots.get(index).generation = generation;
        }
    }
}
