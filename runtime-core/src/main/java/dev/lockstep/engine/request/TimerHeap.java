package dev.lockstep.engine.request;

import java.util.Arrays;

/**
 * The worker's timers: a binary min-heap ordered by deadline, then by arming order, in which every entry knows
 * its position, so a timer is removed in O(log n) the moment its request retires.
 *
 * <p>Why not a hashed wheel: deadlines here have nanosecond precision, and the simulator jumps its clock by
 * hours at once — a wheel would trade exactness for per-tick scans across those jumps. Removal on retirement
 * keeps memory bounded by live timers: a million closed sleeps with far deadlines leave nothing behind.
 *
 * <p>Only the owning worker touches it. Ties fire in arming order, so firing order is deterministic.
 */
final class TimerHeap {
    /** One armed timer. {@code position} is its index in the heap, or -1 once removed. */
    static final class Timer {
        final long deadlineNanos;
        final long sequence;
        final Slot slot;
        int position = -1;

        Timer(long deadlineNanos, long sequence, Slot slot) {
            this.deadlineNanos = deadlineNanos;
            this.sequence = sequence;
            this.slot = slot;
        }

        boolean before(Timer other) {
            return deadlineNanos != other.deadlineNanos ? deadlineNanos < other.deadlineNanos
                    : sequence < other.sequence;
        }
    }

    private Timer[] heap = new Timer[16];
    private int size;
    private long nextSequence;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Arms a timer.
     *
     * @param deadlineNanos when it fires
     * @param slot the request it belongs to
     * @return the timer, for {@link #remove}
     */
    Timer add(long deadlineNanos, Slot slot) {
        Timer timer = new Timer(deadlineNanos, nextSequence++, slot);
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        timer.position = size;
        heap[size++] = timer;
        siftUp(timer.position);
        return timer;
    }

    /**
     * The earliest timer.
     *
     * @return it, or null when empty
     */
    Timer peek() {
        return size == 0 ? null : heap[0];
    }

    /**
     * Removes the earliest timer.
     *
     * @return it, or null when empty
     */
    Timer poll() {
        Timer head = peek();
        if (head != null) {
            remove(head);
            assert size == 0 || !heap[0].before(head) : "the heap's new first timer (" + heap[0].deadlineNanos
                    + " ns) comes before the one it gave out (" + head.deadlineNanos + " ns)";
        }
        return head;
    }

    /**
     * Disarms a timer; no effect if it was already removed.
     *
     * @param timer the timer
     */
    void remove(Timer timer) {
        int at = timer.position;
        if (at < 0) {
            return;
        }
        assert at < size && heap[at] == timer : "a timer at position " + at + " of " + size + " is not there";
        timer.position = -1;
        size--;
        if (at == size) {
            heap[size] = null;
            return;
        }
        Timer last = heap[size];
        heap[size] = null;
        heap[at] = last;
        last.position = at;
        siftDown(at);
        if (last.position == at) {
            siftUp(at);
        }
        if (heap.length > 64 && size < heap.length / 4) {
            heap = Arrays.copyOf(heap, heap.length / 2);
        }
    }

    private void siftUp(int at) {
        Timer moving = heap[at];
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!moving.before(heap[parent])) {
                break;
            }
            heap[at] = heap[parent];
            heap[at].position = at;
            at = parent;
        }
        heap[at] = moving;
        moving.position = at;
    }

    private void siftDown(int at) {
        Timer moving = heap[at];
        while (true) {
            int child = 2 * at + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && heap[child + 1].before(heap[child])) {
                child++;
            }
            if (!heap[child].before(moving)) {
                break;
            }
            heap[at] = heap[child];
            heap[at].position = at;
            at = child;
        }
        heap[at] = moving;
        moving.position = at;
    }
}
