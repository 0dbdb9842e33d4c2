package dev.lockstep.engine.request;

import java.util.Arrays;

/**
 * A growable first-in first-out queue of non-negative {@code int}s: the free slot indices of a {@link SlotTable}.
 * Indices rather than {@link Slot} references, so that releasing a slot stores no reference into a long-lived
 * array (which costs the collector's write barrier on every request). One thread: the owning worker.
 */
final class IndexFifo {
    private int[] elements = new int[16];
    private int head;
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    void addLast(int index) {
        if (size == elements.length) {
            int[] grown = new int[elements.length * 2];
            int firstPart = elements.length - head;
            System.arraycopy(elements, head, grown, 0, firstPart);
            System.arraycopy(elements, 0, grown, firstPart, head);
            elements = grown;
            head = 0;
        }
        elements[(head + size) & (elements.length - 1)] = index;
        size++;
    }

    /**
     * Removes the oldest index.
     *
     * @return it, or -1 if empty
     */
    int pollFirst() {
        if (size == 0) {
            return -1;
        }
        int index = elements[head];
        head = (head + 1) & (elements.length - 1);
        size--;
        return index;
    }

    /**
     * The queued indices, oldest first.
     *
     * @return a copy
     */
    int[] toArray() {
        int[] copy = new int[size];
        for (int i = 0; i < size; i++) {
            copy[i] = elements[(head + i) & (elements.length - 1)];
        }
        return copy;
    }

    @Override
    public String toString() {
        return Arrays.toString(toArray());
    }
}
