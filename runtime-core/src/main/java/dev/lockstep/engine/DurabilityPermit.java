package dev.lockstep.engine;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one durability permit of an open file: syncs of that open run one at a time, and a sync of an open
 * with nothing written since the last sync completes without an {@code fsync}.
 *
 * <p>Thread-safe and lock-free: every method is called inside a worker's critical section
 * ({@link Worker#borrow()}), where nothing may park, so the permit uses atomics and a non-blocking queue only,
 * never a monitor. The permit is a flag taken with {@link #tryAcquire()}; drivers holding syncs that wait for
 * it re-try on every service turn and are woken by {@link #release()}. The dirty flag is set by every write
 * or resize that completes on the open and cleared when a sync takes it; a failed sync sets it again.
 *
 * <p>No lost wake-up: a worker with a waiting sync first adds itself to {@code waiting}, then tries the
 * permit; {@code release} first frees the permit, then reads {@code waiting}. Both pairs are sequentially
 * consistent (a CAS on the queue, volatile reads and writes of the flag), so either the worker's try sees the
 * permit free, or the release sees the worker and nudges it.
 */
public final class DurabilityPermit {
    private final AtomicBoolean held = new AtomicBoolean();
    private final AtomicBoolean dirty = new AtomicBoolean();
    /**
     * Workers with a sync waiting. Each worker adds and removes only itself, from its own critical section, so
     * membership of one worker never races; the queue is {@link ConcurrentLinkedQueue}, whose operations are
     * CAS loops.
     */
    private final ConcurrentLinkedQueue<Worker> waiting = new ConcurrentLinkedQueue<>();

    /**
     * The permit of an open blob of either runtime, for tests that hold it to sequence syncs (the seed's
     * {@code shared.durability}).
     *
     * @param blob an open blob made by the engine
     * @return its permit
     * @throws IllegalArgumentException if the blob is not the engine's
     */
    public static DurabilityPermit of(dev.lockstep.Blob blob) {
        if (!(blob instanceof EngineBlob engineBlob)) {
            throw new IllegalArgumentException("not a Lockstep engine blob: " + blob);
        }
        return engineBlob.permit();
    }

    /**
     * Takes the permit if free.
     *
     * @return true if taken
     */
    public boolean tryAcquire() {
        return held.compareAndSet(false, true);
    }

    /** Releases the permit and nudges every worker with a sync waiting for it. */
    public void release() {
        held.set(false);
        for (Worker worker : waiting) {
            worker.nudge();
        }
    }

    /**
     * Whether the permit is held.
     *
     * @return true if held
     */
    public boolean isHeld() {
        return held.get();
    }

    /** Something was written: the next sync must reach the kernel. */
    public void markDirty() {
        dirty.set(true);
    }

    /**
     * Takes the dirty flag: called by a sync that holds the permit.
     *
     * @return whether anything was written since the last sync
     */
    public boolean takeDirty() {
        return dirty.getAndSet(false);
    }

    /**
     * {@code worker} has a sync waiting for the permit; called by that worker only, before it tries the permit.
     *
     * @param worker the calling worker
     */
    void addWaiter(Worker worker) {
        if (!waiting.contains(worker)) {
            waiting.add(worker);
        }
    }

    /**
     * {@code worker} has no sync waiting any more; called by that worker only.
     *
     * @param worker the calling worker
     */
    void removeWaiter(Worker worker) {
        waiting.remove(worker);
    }
}
