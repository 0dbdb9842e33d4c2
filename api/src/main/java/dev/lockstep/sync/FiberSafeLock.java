package dev.lockstep.sync;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock for a short critical section that tasks share with the threads that run {@link dev.lockstep.Waker}
 * callbacks and complete operations — a primitive's fields, a stream's buffered bytes: a virtual thread never
 * queues for it, it retries with {@link Thread#yield()}.
 *
 * <p>Why not {@code synchronized} or a plain {@link ReentrantLock}: on runtime-uring a worker's tasks are virtual
 * threads whose only carrier is the worker's own thread, and that thread also runs the worker's service turn:
 * completions and the wakers they wake, which take the same locks (a completion sending a result into a channel
 * a task polls; a {@link Futures#toFuture} waker polling a {@link Channel}). A task that contends a monitor or
 * queues on a lock unmounts (JDK 24 and later) and joins the lock's queue. If its carrier then contends the
 * same lock in its service turn, it queues behind the task; when the holder (a plain thread, another worker)
 * releases, the lock is handed to the first in the queue — the task — which can only run on the carrier now
 * blocked behind it: both wait for ever.
 *
 * <p>Here only platform threads ever queue: a virtual thread tries the lock and, failing, yields — its carrier
 * goes on with the worker's turn and resumes it later — so no lock's queue ever holds a task, and the hand-off
 * above cannot happen. A platform thread waits in {@link ReentrantLock#lock()}; the holder is a platform thread
 * or a mounted virtual thread, and neither may park while holding. Hence the rule for every user of this class:
 * the section between {@link #lock()} and {@link #unlock()} is a few field writes and array copies — never a
 * callback, a wake-up, a wait, an operation's poll or a second lock (a virtual thread yielding for a second lock
 * would unmount while holding the first, and its carrier could then queue on that one). A yield loop costs CPU
 * only while another thread is inside such a section, which those few writes bound.
 *
 * <p>Reentrant: the holder may take it again. Written by hand because no library lock has this split between
 * virtual and platform threads.
 */
public final class FiberSafeLock {
    private final ReentrantLock lock = new ReentrantLock();

    /** A new, unheld lock. */
    public FiberSafeLock() {
    }

    /** Takes the lock: a virtual thread by trying and yielding, any other thread by waiting in the queue. */
    public void lock() {
        if (Thread.currentThread().isVirtual()) {
            while (!lock.tryLock()) {
                Thread.yield();
            }
        } else {
            lock.lock();
        }
    }

    /**
     * Takes the lock without ever unmounting the calling thread: a virtual thread spins ({@link Thread#onSpinWait()})
     * where {@link #lock()} yields, any other thread waits in the queue. For a section reached where the caller must
     * stay mounted: runtime code inside a worker's critical section, which a task enters when it turns its worker's
     * ring itself, and where a yield would hand the carrier to the worker's service turn while the task holds the
     * worker's state. The spin ends: the holder is a platform thread or a mounted virtual thread, and neither parks
     * while holding (the rule above), so it lets go after its few writes.
     */
    public void lockWithoutUnmounting() {
        if (Thread.currentThread().isVirtual()) {
            while (!lock.tryLock()) {
                Thread.onSpinWait();
            }
        } else {
            lock.lock();
        }
    }

    /**
     * Releases the lock.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold it
     */
    public void unlock() {
        lock.unlock();
    }

    /**
     * Whether the calling thread holds the lock (for assertions).
     *
     * @return true while held by the caller
     */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * A condition of this lock, for platform threads only: a virtual thread must not wait on it (it would queue).
     *
     * @return a new condition
     */
    public java.util.concurrent.locks.Condition newCondition() {
        return lock.newCondition();
    }
}
