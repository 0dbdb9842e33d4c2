package dev.lockstep.sim.os;

import java.util.List;

/**
 * One of a {@link SimRing}'s binary min-heaps of requests by {@code heapNanos}, then by sequence; each request knows
 * its index. A request is in at most one heap. The simulator's thread only.
 *
 * <p>The engine's timer heap ({@code dev.lockstep.engine.request.TimerHeap}, package-private in runtime-core) has
 * the same sift code and stays a class of its own: one generic heap for both would be a new type that runtime-core
 * exports to runtime-sim, with an entry type both elements extend, for about forty lines. The rest differs: a request's
 * time changes while it is in the heap ({@link #moved}), the earliest time is cached for the scheduler, which asks
 * every ring for it every step, and every due request is collected at once ({@link #collectDue}); a timer's key
 * never changes, it takes its sequence from the heap, is polled one at a time, and the heap shrinks as timers
 * retire. Each compares plain fields of one final class, which the JIT inlines on these hot paths.
 */
final class RequestHeap {
    private SimRequest[] heap = new SimRequest[16];
    private int size;
    /**
     * The first request's time, kept here: the scheduler asks every ring for it every step, and reading it
     * from the request itself is a cache miss.
     */
    private long earliest = Long.MAX_VALUE;

    /** The earliest request; the heap must not be empty. */
    SimRequest first() {
        assert size > 0 : "first() of an empty heap";
        return heap[0];
    }

    /** The earliest time, or {@code Long.MAX_VALUE} when empty. */
    long earliestNanos() {
        return earliest;
    }

    private void firstChanged() {
        earliest = size == 0 ? Long.MAX_VALUE : heap[0].heapNanos;
    }

    void add(SimRequest request) {
        assert request.heapIndex < 0 : "request " + request.sequence + " added while at index " + request.heapIndex
                + " of a heap";
        if (size == heap.length) {
            heap = java.util.Arrays.copyOf(heap, size * 2);
        }
        request.heapIndex = size;
        heap[size++] = request;
        siftUp(request.heapIndex);
        firstChanged();
    }

    void remove(SimRequest request) {
        int index = request.heapIndex;
        assert index >= 0 && index < size && heap[index] == request : "request " + request.sequence
                + " removed from index " + index + " of a heap of " + size + " that does not hold it there";
        request.heapIndex = -1;
        SimRequest last = heap[--size];
        heap[size] = null;
        if (index != size) {
            heap[index] = last;
            last.heapIndex = index;
            siftDown(index);
            siftUp(last.heapIndex);
        }
        firstChanged();
    }

    /** Puts back in place a request whose {@code heapNanos} changed. */
    void moved(SimRequest request) {
        assert request.heapIndex >= 0 && request.heapIndex < size && heap[request.heapIndex] == request
                : "request " + request.sequence + " moved at index " + request.heapIndex + " of a heap of " + size
                + " that does not hold it there";
        siftDown(request.heapIndex);
        siftUp(request.heapIndex);
        firstChanged();
    }

    /** Adds to {@code due} every request whose time is at most {@code now}, in no particular order. */
    void collectDue(long now, List<SimRequest> due) {
        collectDue(0, now, due);
    }

    private void collectDue(int index, long now, List<SimRequest> due) {
        // A request's time is at least its parent's: below one that is not due, none is.
        if (index >= size || heap[index].heapNanos > now) {
            return;
        }
        due.add(heap[index]);
        collectDue(2 * index + 1, now, due);
        collectDue(2 * index + 2, now, due);
    }

    void forEach(java.util.function.Consumer<SimRequest> action) {
        for (int i = 0; i < size; i++) {
            action.accept(heap[i]);
        }
    }

    private static boolean before(SimRequest a, SimRequest b) {
        return a.heapNanos < b.heapNanos || (a.heapNanos == b.heapNanos && a.sequence < b.sequence);
    }

    private void siftUp(int index) {
        SimRequest moving = heap[index];
        while (index > 0) {
            int parent = (index - 1) >>> 1;
            if (!before(moving, heap[parent])) {
                break;
            }
            heap[index] = heap[parent];
            heap[index].heapIndex = index;
            index = parent;
        }
        heap[index] = moving;
        moving.heapIndex = index;
    }

    private void siftDown(int index) {
        SimRequest moving = heap[index];
        while (true) {
            int child = 2 * index + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], moving)) {
                break;
            }
            heap[index] = heap[child];
            heap[index].heapIndex = index;
            index = child;
        }
        heap[index] = moving;
        moving.heapIndex = index;
    }
}
