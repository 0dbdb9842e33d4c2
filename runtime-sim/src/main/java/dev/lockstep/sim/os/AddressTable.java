package dev.lockstep.sim.os;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A map from native addresses to values, without a boxed key or an entry object per mapping: open addressing with
 * linear probing, at most half full, and removal by shifting the probe run back (no tombstones), so a lookup
 * touches two arrays and, usually, one slot. {@link RingMemory} looks up every staged request's buffer in one.
 * Iteration ({@link #forEach}) goes in slot order, which depends on the addresses: a caller that needs an order
 * sorts. Null values are not allowed (null marks a free slot). Not thread-safe: the simulator's thread only.
 *
 * @param <V> the values
 */
final class AddressTable<V> {
    private static final int FIRST_CAPACITY = 16;
    /** Fibonacci hashing: the multiplier spreads aligned addresses (low bits all zero) over the high bits. */
    private static final long SPREAD = 0x9E37_79B9_7F4A_7C15L;

    private long[] keys = new long[FIRST_CAPACITY];
    private Object[] values = new Object[FIRST_CAPACITY];
    private int size;
    /** {@code 64 - log2(capacity)}: the shift that takes a spread key's top bits as its home slot. */
    private int shift = Long.SIZE - Integer.numberOfTrailingZeros(FIRST_CAPACITY);

    /** How many mappings there are. */
    int size() {
        return size;
    }

    /** The value mapped to {@code address}, or null. */
    @SuppressWarnings("unchecked")
    V get(long address) {
        int mask = keys.length - 1;
        for (int slot = home(address); ; slot = (slot + 1) & mask) {
            Object value = values[slot];
            if (value == null) {
                return null;
            }
            if (keys[slot] == address) {
                return (V) value;
            }
        }
    }

    /** Maps {@code address} to {@code value} (not null), replacing any mapping; returns the value it replaced. */
    @SuppressWarnings("unchecked")
    V put(long address, V value) {
        if (value == null) {
            throw new NullPointerException("value of address " + address);
        }
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int slot = home(address); ; slot = (slot + 1) & mask) {
            Object held = values[slot];
            if (held == null) {
                keys[slot] = address;
                values[slot] = value;
                size++;
                return null;
            }
            if (keys[slot] == address) {
                values[slot] = value;
                return (V) held;
            }
        }
    }

    /** Removes the mapping of {@code address}; returns its value, or null if there was none. */
    @SuppressWarnings("unchecked")
    V remove(long address) {
        int mask = keys.length - 1;
        int slot = home(address);
        while (values[slot] != null && keys[slot] != address) {
            slot = (slot + 1) & mask;
        }
        Object removed = values[slot];
        if (removed == null) {
            return null;
        }
        // Backward shift: every later entry of the probe run whose home does not lie cyclically in (hole, itself]
        // moves into the hole, so that no lookup stops early at the emptied slot.
        int hole = slot;
        for (int next = (hole + 1) & mask; values[next] != null; next = (next + 1) & mask) {
            int home = home(keys[next]);
            boolean stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
            if (!stays) {
                keys[hole] = keys[next];
                values[hole] = values[next];
                hole = next;
            }
        }
        values[hole] = null;
        size--;
        return (V) removed;
    }

    /** Gives every value to {@code action}, in slot order. The table must not change meanwhile. */
    @SuppressWarnings("unchecked")
    void forEach(Consumer<? super V> action) {
        for (Object value : values) {
            if (value != null) {
                action.accept((V) value);
            }
        }
    }

    /** Removes every mapping. */
    void clear() {
        Arrays.fill(values, null);
        size = 0;
    }

    private int home(long address) {
        return (int) ((address * SPREAD) >>> shift);
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldValues.length * 2];
        shift--;
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int slot = home(oldKeys[i]);
                while (values[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }
}
