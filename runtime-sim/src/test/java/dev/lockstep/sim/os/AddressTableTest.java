package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AddressTableTest {

    /**
     * Puts, replacements, lookups and removals against a HashMap, over addresses drawn from a few small ranges of
     * page-aligned and odd addresses: probe runs collide, wrap around the end of the table and are shifted back by
     * removals, and the table grows and keeps every mapping.
     */
    @Test
    void agreesWithAHashMapUnderMixedOperations() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            AddressTable<String> table = new AddressTable<>();
            Map<Long, String> model = new HashMap<>();
            for (int step = 0; step < 4_000; step++) {
                long address = switch (random.nextInt(3)) {
                    case 0 -> 0x7f00_0000_0000L + 4096L * random.nextInt(200);
                    case 1 -> 0x5555_0000_1000L + 16L * random.nextInt(200);
                    default -> random.nextLong(1, 300);
                };
                int operation = random.nextInt(10);
                if (operation < 5) {
                    String value = "v" + step;
                    assertEquals(model.put(address, value), table.put(address, value), "put " + address);
                } else if (operation < 8) {
                    assertEquals(model.remove(address), table.remove(address), "remove " + address);
                } else {
                    assertEquals(model.get(address), table.get(address), "get " + address);
                }
                assertEquals(model.size(), table.size());
            }
            for (Map.Entry<Long, String> entry : model.entrySet()) {
                assertEquals(entry.getValue(), table.get(entry.getKey()), "seed " + seed + ", " + entry.getKey());
            }
            Map<String, Integer> seen = new HashMap<>();
            table.forEach(value -> seen.merge(value, 1, Integer::sum));
            assertEquals(model.size(), seen.size());
            model.values().forEach(value -> assertEquals(1, seen.get(value), value));
            table.clear();
            assertEquals(0, table.size());
            for (long address : model.keySet()) {
                assertNull(table.get(address));
            }
        }
    }

    @Test
    void refusesANullValueNamingTheAddress() {
        AddressTable<String> table = new AddressTable<>();
        NullPointerException refused = assertThrows(NullPointerException.class, () -> table.put(4096, null));
        assertEquals("value of address 4096", refused.getMessage());
        assertEquals(0, table.size());
    }
}
