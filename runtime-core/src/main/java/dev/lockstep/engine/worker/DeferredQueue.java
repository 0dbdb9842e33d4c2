package dev.lockstep.engine.worker;

import dev.lockstep.Waker;
import dev.lockstep.engine.request.Request;
import dev.lockstep.kernel.Ring;

/**
 * A worker's deferred callbacks, in the order they were queued (see {@link Worker#defer}). The two callbacks
 * every operation defers — waking its waker when it completes, releasing its request when it retires — are
 * queued as a kind and the object itself, so they cost no capturing lambda each; anything else is a
 * {@link Runnable}.
 *
 * <p>Confined to its worker, like the rest of the worker's state: only the worker's fibers and the thread
 * servicing it add and run entries, one at a time, so it needs no synchronization. An entry's slot is cleared
 * when it is taken, so the queue holds no reference to a callback that ran.
 */
final class DeferredQueue {
    private static final byte RUN = 0;
    private static final byte WAKE = 1;
    private static final byte RELEASE_WAKER = 2;
    private static final byte RELEASE_REQUEST = 3;

    private byte[] kinds = new byte[16];
    private Object[] items = new Object[16];
    private int head;
    private int size;

    void run(Runnable callback) {
        add(RUN, java.util.Objects.requireNonNull(callback, "callback"));
    }

    void wake(Waker waker) {
        add(WAKE, waker);
    }

    void release(Waker waker) {
        add(RELEASE_WAKER, waker);
    }

    void release(Request request) {
        add(RELEASE_REQUEST, request);
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Takes the oldest entry and runs it; what it throws propagates, with the entry gone.
     *
     * @param ring the ring a released request frees its memory to
     * @return false if the queue was empty
     */
    boolean runOne(Ring ring) {
        if (size == 0) {
            return false;
        }
        int at = head;
        byte kind = kinds[at];
        Object item = items[at];
        items[at] = null;
        head = (at + 1) & (items.length - 1);
        size--;
        switch (kind) {
            case WAKE -> ((Waker) item).wake();
            case RELEASE_WAKER -> ((Waker) item).release();
            case RELEASE_REQUEST -> ((Request) item).release(ring);
            default -> ((Runnable) item).run();
        }
        return true;
    }

    private void add(byte kind, Object item) {
        if (size == items.length) {
            grow();
        }
        int at = (head + size) & (items.length - 1);
        kinds[at] = kind;
        items[at] = item;
        size++;
    }

    private void grow() {
        int capacity = items.length;
        byte[] newKinds = new byte[capacity * 2];
        Object[] newItems = new Object[capacity * 2];
        for (int i = 0; i < size; i++) {
            int from = (head + i) & (capacity - 1);
            newKinds[i] = kinds[from];
            newItems[i] = items[from];
        }
        kinds = newKinds;
        items = newItems;
        head = 0;
    }
}
