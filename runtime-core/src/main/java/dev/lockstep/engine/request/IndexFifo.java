package dev.lockstep.engine.request;

import java.util.Arrays;

/**
 * A growable first-in first-out queue of non-negative {@code int}s: the free slot indices of a {@link SlotTable},
 * the queued requests of each budget in {@link SubmitQueues}. Indices rather than {@link Slot} references, so that
 * releasing a slot or queueing a request stores no reference into a long-lived array (which costs the
 * collector's write barrier on every request). One thread: the owning worker.
 */
final class IndexFifo {
    private int[] elements = new int[16];
    private int head;
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void addLast(int index) {
        if (size == elements.length) {
            grow();
        }
        elements[(head + size) & (elements.length - 1)] = index;
        size++;
    }

    /** Puts {@code index} before every other element: the next {@link #pollFirst} returns it. */
    void addFirst(int index) {
        if (size == elements.length) {
            grow();
        }
        head = (head - 1) & (elements.length - 1);
        elements[head] = index;
        size++;
    }

    private void grow() {
        int[] grown = new int[elements.length * 2];
        int firstPart = elements.length - head;
        System.arraycopy(elements, head, grown, 0, firstPart);
        System.arraycopy(elements, 0, grown, firstPart, head);
        elements = grown;
        head = 0;
    }

    /**
     * The first element, left queued.
     *
     * @return it, or -1 if empty
     */
    int peekFirst() {
        return size == 0 ? -1 : elements[head];
    }

    /**
     * Removes the first occurrence of {@code index}, keeping the others' order; linear in the size.
     *
     * @return whether it was queued
     */
    boolean remove(int index) {
        int mask = elements.length - 1;
        for (int i = 0; i < size; i++) {
            if (elements[(head + i) & mask] == index) {
                for (int j = i; j < size - 1; j++) {
                    elements[(head + j) & mask] = elements[(head + j + 1) & mask];
                }
                size--;
                return true;
            }
        }
        return false;
    }

    void clear() {
        head = 0;
        size = 0;
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
