package dev.lockstep.engine.worker;

import dev.lockstep.engine.io.DurabilityPermit;
import dev.lockstep.engine.io.MetadataLane;
import dev.lockstep.engine.request.Driver;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.request.ResultChannel;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.kernel.Ring;
import dev.lockstep.sync.FiberSafeLock;

/**
 * A worker's critical section: engine code that mutates the worker's state (its driver, timers, queues) holds it
 * from {@link Worker#borrow()} to {@link Worker#unborrow()}; a second borrow is a reentrancy bug and throws
 * {@link IllegalStateException}.
 *
 * <p>The state is a plain flag, not a lock, because only the worker touches it: a fiber of this worker
 * (registering, polling, closing an operation) or the thread servicing it. On runtime-uring the fibers of
 * a worker run on its one thread, so a fiber inside a borrow and that thread's service turn exclude each
 * other only as long as the fiber does not unmount. Hence the rule: <b>nothing reachable inside a borrow
 * may park</b> — no monitor another thread can hold (a virtual thread that contends one unmounts, JDK 24
 * and later), no {@code java.util.concurrent} lock, no {@code LockSupport.park}, no {@code await}. If it
 * did, the carrier would go on to service the worker, find the state borrowed and fail; with the fiber
 * parked for good, the runner would wedge.
 *
 * <p>What runs inside, and why it cannot park:
 * <ul>
 *   <li>the {@link Driver} and its {@code TimerHeap}, slots and queues: confined to this worker;</li>
 *   <li>{@link Request} methods ({@code kind}, {@code permit}, {@code prepare}, {@code complete},
 *       {@code runImmediate}, {@code closedEarly}, {@code timedOut}): they touch their own fields, atomics,
 *       ring memory and synchronous system calls, which block the carrier in the kernel but never unmount a
 *       fiber ({@code prepare}, {@code complete} and {@code runImmediate} run on the carrier in a service
 *       turn, or on a fiber that turns the ring itself, {@link InlineTurns#turn}: a lock one of them shares with
 *       other threads, a stream's buffered bytes, is taken with
 *       {@link dev.lockstep.sync.FiberSafeLock#lockWithoutUnmounting()}, which spins where {@code lock()}
 *       would yield; {@code UringPeekDuringInlineTurnsTest} failed within a second before it did).
 *       Storage metadata (open, remove, scan) is not run here at all: it is a {@code BLOCKING_CALL} the
 *       kernel runs off the worker, and inside the borrow it only joins, tests and leaves its partition's
 *       {@link MetadataLane}, a lock-free queue. Everything else a carrier shares with
 *       fibers — a stream's buffered bytes, a {@link ResultChannel}, the mailbox, wait lists, the supervision tree —
 *       is guarded by a {@link FiberSafeLock}, for which no fiber ever queues: a fiber queued on a monitor
 *       that its own carrier then contends is handed the monitor while its only carrier is blocked behind it,
 *       and both wait for ever;</li>
 *   <li>{@link DurabilityPermit}: atomics and a lock-free queue of waiting workers;</li>
 *   <li>{@link Ring#wake()} of another worker (a permit released): an eventfd write, lock-free;</li>
 *   <li>{@link Worker#defer}: a queue confined to this worker. Everything else — wakes, releases, channel sends
 *       — is deferred and runs after the borrow;</li>
 *   <li>the service turn's {@link Ring#enter}, which may wait in the kernel: on the carrier, not in a fiber,
 *       and no fiber of this worker can run while its carrier waits, so nobody else needs the state.</li>
 * </ul>
 *
 * <p>A violation is turned into a loud failure: every continuation of a fiber runs through
 * {@link Fiber#runContinuation}, which, when the fiber unmounted with the state still borrowed, fails the
 * runtime with an {@link IllegalStateException} carrying that fiber's stack. Until the fiber resumes and ends
 * its borrow, service turns leave the state alone.
 *
 * <p>Threads: the worker's own (its fibers, and the thread servicing it); the flag needs no ordering for the same
 * reason it need not be a lock.
 */
public final class CriticalSection {
    private final Worker worker;
    private boolean borrowed;
    /**
     * The fiber that unmounted while it held the state, or null. Written and read only by the worker's carrier:
     * the guard runs right after the fiber's continuation returned on it.
     */
    private Fiber stranded;

    CriticalSection(Worker worker) {
        this.worker = worker;
    }

    /**
     * Enters the section.
     *
     * @throws IllegalStateException if already borrowed (reentrancy bug)
     */
    void enter() {
        if (borrowed) {
            throw new IllegalStateException("worker " + worker.index() + " state is already borrowed: a callback ran"
                    + " inside the worker's critical section");
        }
        borrowed = true;
    }

    /** Leaves the section; a fiber stranded in it has resumed and ended its borrow. */
    void exit() {
        assert borrowed : "worker " + worker.index() + " left a critical section it was not in";
        borrowed = false;
        stranded = null;
    }

    /**
     * Whether the state is borrowed now.
     *
     * @return true inside the section
     */
    boolean isHeld() {
        return borrowed;
    }

    /**
     * Called on the carrier after a continuation of {@code fiber} returned, that is, after the fiber unmounted
     * or finished: if it left the state borrowed, it parked inside the critical section.
     *
     * @param fiber the fiber whose continuation just returned
     */
    public void checkUnmounted(Fiber fiber) {
        if (!borrowed || stranded != null) {
            return;
        }
        stranded = fiber;
        IllegalStateException violation = new IllegalStateException("fiber '" + fiber.label() + "' of worker "
                + worker.index() + " unmounted (parked, or blocked on a monitor) while it held the worker's state: nothing"
                + " inside Worker.borrow() may park; this exception carries the fiber's stack at that moment");
        Thread thread = fiber.thread();
        if (thread != null) {
            violation.setStackTrace(thread.getStackTrace());
        }
        worker.engine().fail(violation);
    }

    /**
     * Whether a fiber that unmounted inside the critical section still holds the state: nothing may touch it
     * until that fiber resumes and ends its borrow.
     */
    boolean isStranded() {
        return borrowed && stranded != null;
    }
}
