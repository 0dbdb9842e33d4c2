package dev.lockstep.sim.os;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A map from native addresses to values, for lookups on every request's path: open addressing over a {@code long[]}
 * of keys (linear probing, deletion by shifting back), so a lookup neither boxes the address nor follows a chain.
 * Its order of iteration is not kept: {@link #values()} gives the values in no particular order, which callers sort.
 * The simulator's thread only.
 *
 * @param <V> the values, never null
 */
final class AddressTable<V> {
    /** The keys; a slot holds a key if and only if its value is not null. */
    private long[] keys = new long[16];
    private Object[] values = new Object[16];
    private int size;

    /** The value for {@code address}, or null if there is none. */
    @SuppressWarnings("unchecked")
    V get(long address) {
        int mask = keys.length - 1;
        for (int slot = slotOf(address, mask); ; slot = (slot + 1) & mask) {
            Object value = values[slot];
            if (value == null) {
                return null;
            }
            if (keys[slot] == address) {
                return (V) value;
            }
        }
    }

    /** Sets the value for {@code address}, replacing any. */
    void put(long address, V value) {
        if (value == null) {
            throw new IllegalArgumentException("a null value for address " + address);
        }
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int slot = slotOf(address, mask);
        while (values[slot] != null && keys[slot] != address) {
            slot = (slot + 1) & mask;
        }
        if (values[slot] == null) {
            size++;
        }
        keys[slot] = address;
        values[slot] = value;
    }

    /** Removes and returns the value for {@code address}, or null if there is none. */
    @SuppressWarnings("unchecked")
    V remove(long address) {
        int mask = keys.length - 1;
        int slot = slotOf(address, mask);
        while (values[slot] != null && keys[slot] != address) {
            slot = (slot + 1) & mask;
        }
        Object removed = values[slot];
        if (removed == null) {
            return null;
        }
        size--;
        // Shift back every later entry of the run that could not sit in its own slot while this one was taken.
        int hole = slot;
        for (int next = (hole + 1) & mask; values[next] != null; next = (next + 1) & mask) {
            int home = slotOf(keys[next], mask);
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                keys[hole] = keys[next];
                values[hole] = values[next];
                hole = next;
            }
        }
        values[hole] = null;
        return (V) removed;
    }

    /** How many addresses have a value. */
    int size() {
        return size;
    }

    /** Every value, in no particular order. */
    @SuppressWarnings("unchecked")
    List<V> values() {
        List<V> all = new ArrayList<>(size);
        for (Object value : values) {
            if (value != null) {
                all.add((V) value);
            }
        }
        return all;
    }

    /** Removes every value. */
    void clear() {
        Arrays.fill(values, null);
        size = 0;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldValues.length * 2];
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int slot = slotOf(oldKeys[i], mask);
                while (values[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }

    /** Spreads the address's bits (allocations are aligned, so its low bits are mostly zero) over the slots. */
    private static int slotOf(long address, int mask) {
        long h = address * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }
}
