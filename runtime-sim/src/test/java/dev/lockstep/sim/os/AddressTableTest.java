package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The table of live ring allocations answers as a map does through puts, growth and removals that shift entries
 * back, with addresses as the C library hands them out (aligned, so clustered in their low bits): a lookup that
 * missed an entry would lose a leak report or free memory twice.
 */
class AddressTableTest {

    @Test
    void agreesWithAMapThroughPutsGrowthAndRemovals() {
        Random random = new Random(7);
        AddressTable<String> table = new AddressTable<>();
        Map<Long, String> expected = new HashMap<>();
        List<Long> keys = new ArrayList<>();
        for (int op = 0; op < 200_000; op++) {
            int kind = random.nextInt(10);
            if (kind < 4 || keys.isEmpty()) {
                long address = 0x7f00_0000_0000L + 64L * random.nextInt(4096);
                String value = "v" + op;
                table.put(address, value);
                if (expected.put(address, value) == null) {
                    keys.add(address);
                }
            } else if (kind < 7) {
                long address = keys.remove(random.nextInt(keys.size()));
                assertEquals(expected.remove(address), table.remove(address), "remove " + address);
            } else {
                long address = 0x7f00_0000_0000L + 64L * random.nextInt(4096);
                assertEquals(expected.get(address), table.get(address), "get " + address);
            }
            assertEquals(expected.size(), table.size());
        }
        for (Map.Entry<Long, String> entry : expected.entrySet()) {
            assertEquals(entry.getValue(), table.get(entry.getKey()));
        }
        List<String> values = table.values();
        values.sort(null);
        List<String> expectedValues = new ArrayList<>(expected.values());
        expectedValues.sort(null);
        assertEquals(expectedValues, values);
        table.clear();
        assertEquals(0, table.size());
        assertNull(table.get(keys.isEmpty() ? 0 : keys.getFirst()));
    }

    @Test
    void removingAnAbsentAddressChangesNothing() {
        AddressTable<String> table = new AddressTable<>();
        table.put(4096, "a");
        assertNull(table.remove(8192));
        assertEquals("a", table.get(4096));
        assertEquals(1, table.size());
    }
}
