package dev.lockstep.engine;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one durability permit of an open file: syncs of that open run one at a time, and a sync of an open
 * with nothing written since the last sync completes without an {@code fsync}.
 *
 * <p>Thread-safe. The permit is a flag taken with {@link #tryAcquire()}; drivers holding syncs that wait for
 * it re-try on every service turn and are woken by {@link #release()}. The dirty flag is set by every write
 * or resize admitted on the open and cleared when a sync takes it; a failed sync sets it again.
 */
public final class DurabilityPermit {
    private final AtomicBoolean held = new AtomicBoolean();
    private final AtomicBoolean dirty = new AtomicBoolean();
    private final java.util.List<Worker> waiting = new java.util.concurrent.CopyOnWriteArrayList<>();

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

    void addWaiter(Worker worker) {
        if (!waiting.contains(worker)) {
            waiting.add(worker);
        }
    }

    void removeWaiter(Worker worker) {
        waiting.remove(worker);
    }
}
