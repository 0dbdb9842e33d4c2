package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link SubmitQueues} hold slot indices and trust that each names a queued slot: a slot that retired while its
 * index stayed queued (the index now names a free slot, or another request once reused) is a bug its assert
 * reports before that slot could be staged (every test JVM runs with {@code -ea}).
 */
class SubmitQueuesTest {

    private static Slot queued(SlotTable table, SubmitQueues queues, Request.Budget budget, long admission) {
        Slot slot = table.occupy();
        slot.budget = budget;
        slot.admission = admission;
        slot.state = Slot.State.QUEUED;
        queues.add(slot);
        return slot;
    }

    @Test
    void theOldestQueuedSlotAcrossBudgetsIsPeekedAndLeftQueued() {
        SlotTable table = new SlotTable();
        SubmitQueues queues = new SubmitQueues(8, table);
        Slot storage = queued(table, queues, Request.Budget.STORAGE, 2);
        Slot inbound = queued(table, queues, Request.Budget.INBOUND, 1);
        assertSame(inbound, queues.peekStageable());
        queues.staged(inbound);
        inbound.state = Slot.State.IN_FLIGHT;
        assertSame(storage, queues.peekStageable());
        queues.staged(storage);
        assertNull(queues.peekStageable());
    }

    @Test
    void aQueuedIndexWhoseSlotRetiredIsRefused() {
        SlotTable table = new SlotTable();
        SubmitQueues queues = new SubmitQueues(8, table);
        Slot slot = queued(table, queues, Request.Budget.STORAGE, 1);
        slot.state = Slot.State.FREE; // retired without leaving its queue
        table.release(slot);
        AssertionError refused = assertThrows(AssertionError.class, queues::peekStageable);
        assertTrue(refused.getMessage().contains("the STORAGE queue's head is slot 0, which is FREE, not queued"),
                refused.getMessage());
    }
}
