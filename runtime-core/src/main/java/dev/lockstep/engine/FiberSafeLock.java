package dev.lockstep.engine;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock for a short critical section that fibers and worker threads share (a {@link OneShot}'s fields, a
 * stream's buffered bytes, a wait list): a fiber never queues for it, it retries with {@link Thread#yield()}.
 *
 * <p>Why not {@code synchronized} or a plain {@link ReentrantLock}: on runtime-uring a worker's fibers are
 * virtual threads whose only carrier is the worker's own thread, and that thread also runs the worker's
 * service turn, which takes the same locks (a completion sending a result into a {@code OneShot}). A fiber
 * that contends a monitor or queues on a lock unmounts (JDK 24 and later) and joins the lock's queue. If its
 * carrier then contends the same lock in its service turn, it queues behind the fiber; when the holder (a
 * plain thread, another worker) releases, the lock is handed to the first in the queue — the fiber — which
 * can only run on the carrier now blocked waiting for the lock: both wait for ever. (Reproduced: a scripted
 * kernel's monitor, taken by a fiber and by its carrier's ring enter, wedged 2 runs in 400.)
 *
 * <p>Here only platform threads ever queue: a virtual thread tries the lock and, failing, yields — its carrier
 * goes on servicing the worker and resumes it later — so no lock's queue ever holds a fiber, and the hand-off
 * above cannot happen. A platform thread waits in {@link ReentrantLock#lock()}; its holder is either a platform
 * thread or a mounted fiber, and neither may park while holding: the rule for every user of this class is that
 * the section between {@link #lock()} and {@link #unlock()} is a few field writes and array copies, never a
 * callback, a wake-up, a wait or a second lock (a fiber yielding for a second lock would unmount while holding
 * the first, and its carrier could then queue on that one). A yield loop costs CPU only while another thread
 * is inside such a section, which is bounded by those few writes.
 */
final class FiberSafeLock {
    private final ReentrantLock lock = new ReentrantLock();

    /** Takes the lock: a virtual thread by trying and yielding, any other thread by waiting in the queue. */
    void lock() {
        if (Thread.currentThread().isVirtual()) {
            while (!lock.tryLock()) {
                Thread.yield();
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
    void unlock() {
        lock.unlock();
    }

    /**
     * Whether the calling thread holds the lock (for assertions).
     *
     * @return true while held by the caller
     */
    boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * A condition of this lock, for platform threads only (a fiber must not wait on it: it would queue).
     *
     * @return a new condition
     */
    Condition newCondition() {
        return lock.newCondition();
    }
}
