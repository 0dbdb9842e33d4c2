package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reuse order of a {@link SlotTable}: the index released longest ago comes back first, one generation on, and
 * an id of the index's earlier use no longer finds it — also once more indices are free at a time than the free
 * list first holds, and after that list has wrapped around.
 */
class SlotTableTest {
    @Test
    void releasedIndicesComeBackOldestFirstWithANewGeneration() {
        SlotTable table = new SlotTable();
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Slot slot = table.occupy();
            assertEquals(i, slot.index);
            slot.state = Slot.State.QUEUED;
            slots.add(slot);
        }
        // Release in an order that is not the index order; 40 free at once outgrows the free list's first size.
        List<Slot> released = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            released.add(slots.get((i * 7) % 40));
        }
        List<Long> staleIds = new ArrayList<>();
        for (Slot slot : released) {
            staleIds.add(slot.userData());
            slot.state = Slot.State.FREE;
            table.release(slot);
        }
        for (int round = 0; round < 3; round++) {
            // Occupying and releasing one at a time walks the free list round and round: the order stays FIFO.
            for (int i = 0; i < released.size(); i++) {
                Slot expected = released.get(i);
                Slot slot = table.occupy();
                assertSame(expected, slot, "round " + round + ", reuse " + i);
                assertEquals(round + 1, slot.generation);
                slot.state = Slot.State.QUEUED;
                assertNull(table.live(staleIds.get(i)), "an id of the index's earlier use finds nothing");
                assertSame(slot, table.live(slot.userData()));
                staleIds.set(i, slot.userData());
                slot.state = Slot.State.FREE;
                table.release(slot);
            }
        }
        assertEquals(0, table.occupied());
        assertEquals(40, table.all().size(), "no index was made while free ones waited");
    }
}
