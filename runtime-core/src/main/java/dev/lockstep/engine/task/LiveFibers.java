package dev.lockstep.engine.task;

import dev.lockstep.engine.Engine;
import dev.lockstep.sync.FiberSafeLock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fibers of one {@link Engine} that started and have not finished: a count every thread may read, and the
 * fibers themselves in start order (insertion order keeps diagnostics deterministic), for leak reports and for
 * the simulator's look for a fiber waiting outside Lockstep. Thread-safe.
 */
public final class LiveFibers {
    private final AtomicInteger count = new AtomicInteger();
    /**
     * The live fibers in start order, guarded by {@link #lock}: a doubly linked list through the fibers' own
     * {@link Fiber#liveBefore} and {@link Fiber#liveAfter}, so that a live fiber costs no entry of a set (a server
     * with a fiber per idle connection holds one per connection). Fibers add and remove themselves while worker
     * threads snapshot the list (a {@link FiberSafeLock}, not a monitor: a fiber must never queue on a lock its
     * carrier may take).
     */
    private Fiber first;
    private Fiber last;
    private int size;
    private final FiberSafeLock lock = new FiberSafeLock();
    /** The array {@link #firstWaitingOutsideLockstep} copies the fibers into; its caller's alone. */
    private Fiber[] waitingScan = new Fiber[16];

    /** A fiber is about to be made: counted before its thread exists, so a run cannot look finished meanwhile. */
    void counting() {
        count.incrementAndGet();
    }

    /** A fiber counted by {@link #counting} has ended: its thread no longer runs its task. */
    void uncount() {
        count.decrementAndGet();
    }

    /** Fibers counted and not yet uncounted; any thread. */
    public int count() {
        return count.get();
    }

    /**
     * The fiber is about to start; {@link #remove} takes it out when its task ended. A fiber is added once, to one
     * list: a second add would link it after itself (a cycle that {@link #copyInto} would follow past the array's
     * end), and an add to a second list would overwrite its links in the first. Either is a bug, which the assert
     * reports, and which without asserts changes no list.
     */
    void add(Fiber fiber) {
        lock.lock();
        try {
            assert fiber.listedIn == null && fiber.liveBefore == null && fiber.liveAfter == null && first != fiber
                    : "fiber '" + fiber.label() + "' added while already listed" + (fiber.listedIn == this ? " here"
                            : fiber.listedIn == null ? " (its links were not cleared)"
                            : " in another engine's live fibers");
            if (fiber.listedIn != null) {
                return;
            }
            fiber.listedIn = this;
            fiber.liveBefore = last;
            if (last == null) {
                first = fiber;
            } else {
                last.liveAfter = fiber;
            }
            last = fiber;
            size++;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The fiber's task ended: it leaves the list. Only a fiber {@link #add added} here and not removed since may
     * be removed (its own thread's last step, once); anything else is a bug, which the assert reports, and which
     * without asserts changes neither this list nor the one the fiber is in.
     */
    void remove(Fiber fiber) {
        lock.lock();
        try {
            assert fiber.listedIn == this : "fiber '" + fiber.label() + "' removed but "
                    + (fiber.listedIn == null ? "not listed" : "listed in another engine's live fibers");
            if (fiber.listedIn != this) {
                return;
            }
            if (fiber.liveBefore == null) {
                first = fiber.liveAfter;
            } else {
                fiber.liveBefore.liveAfter = fiber.liveAfter;
            }
            if (fiber.liveAfter == null) {
                last = fiber.liveBefore;
            } else {
                fiber.liveAfter.liveBefore = fiber.liveBefore;
            }
            fiber.listedIn = null;
            fiber.liveBefore = null;
            fiber.liveAfter = null;
            size--;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot of the live fibers, in the order they started. */
    public List<Fiber> snapshot() {
        lock.lock();
        try {
            return List.of(copyInto(new Fiber[size]));
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link Engine#fiberWaitingOutsideLockstep()}. One caller at a time (the simulator asks from its own thread
     * before every clock jump): the fibers are copied into an array kept for the next call rather than into a new
     * list each time, and read outside the lock, whose section stays a copy.
     */
    public String firstWaitingOutsideLockstep() {
        Fiber[] snapshot;
        int live;
        lock.lock();
        try {
            live = size;
            snapshot = copyInto(waitingScan.length >= size ? waitingScan : new Fiber[size]);
        } finally {
            lock.unlock();
        }
        waitingScan = snapshot;
        try {
            return firstWaitingOutsideLockstep(snapshot, live);
        } finally {
            java.util.Arrays.fill(snapshot, 0, live, null); // holds no finished fiber until the next call
        }
    }

    /** The live fibers in start order, from index 0 of {@code into}, which holds at least {@link #size}; locked. */
    private Fiber[] copyInto(Fiber[] into) {
        int i = 0;
        for (Fiber fiber = first; fiber != null; fiber = fiber.liveAfter) {
            into[i++] = fiber;
        }
        return into;
    }

    private static String firstWaitingOutsideLockstep(Fiber[] snapshot, int count) {
        for (int i = 0; i < count; i++) {
            Fiber fiber = snapshot[i];
            Thread.State state = fiber.threadState();
            if (state == Thread.State.TIMED_WAITING) {
                return "fiber '" + fiber.label() + "' of worker " + fiber.home().index() + " is in a timed park"
                        + " (Thread.sleep, LockSupport.parkNanos, a timed wait or Future.get with a timeout) that"
                        + " wall-clock time would end; use ctx.sleep or ctx.timeout";
            }
            if (state == Thread.State.BLOCKED) {
                return "fiber '" + fiber.label() + "' of worker " + fiber.home().index() + " is blocked on a"
                        + " contended monitor (synchronized) that another thread releases; do not hold monitors"
                        + " across awaits";
            }
        }
        return null;
    }
}
