package dev.lockstep.engine.io;

import dev.lockstep.engine.worker.Worker;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one durability permit of an open file: syncs of that open run one at a time, a sync of an open with
 * nothing written since the last sync completes without an {@code fsync}, and syncs waiting together share
 * one (group sync).
 *
 * <h2>Group sync</h2>
 * Flushes of the open (the {@code fdatasync} calls its syncs make) are numbered 1, 2, … in the order they are
 * issued; one runs at a time, under the permit. A sync admitted when {@code n} flushes had been issued takes
 * the ticket {@code n + 1}: the first flush issued after its admission. That flush covers it, because every
 * write the sync must make durable completed before the sync was admitted, so before that flush's
 * {@code fdatasync} was called. So when flush {@code k} succeeds, every sync waiting with a ticket up to
 * {@code k} completes with it, on whichever worker it waits; a sync that arrived while flush {@code k} was in
 * flight holds ticket {@code k + 1} and waits for the next flush, which the first of them to get the permit
 * issues. A failed flush covers nobody: the sync that issued it fails, and it poisons the open ({@link #poison}),
 * so every sync still waiting and every later one fails too without reaching the kernel — Linux reported the
 * writeback error once and marked the pages clean, so no later flush of this open can make those writes durable.
 * The simulator runs this same code over its kernel, so its crash model sees exactly the flushes issued here.
 *
 * <p>A {@code WriteOptions.SYNC} write takes part as a sync admitted when its last byte was written
 * ({@code Request.joinGroupSync}, called by the driver of the worker that completed the write): its ticket is the
 * first flush issued after that, which covers its bytes as it covers a sync's writes, and it completes, fails or
 * is refused exactly as such a sync would. So concurrent {@code SYNC} writes and syncs of one open, on any workers,
 * share flushes.
 *
 * <p>Thread-safe and lock-free: every method is called inside a worker's critical section
 * ({@link Worker#borrow()}), where nothing may park, so the permit uses atomics and a non-blocking queue only,
 * never a monitor. The permit is a flag taken with {@link #tryAcquire()}; drivers holding syncs that wait for
 * it re-try on every service turn and are woken by {@link #release()}. The holder is one request's slot of one
 * driver, which gives it back in one place whichever way the sync ends ({@code RequestEnds.letGo}). The dirty
 * flag is set by every write or resize that completes on the open and cleared when a sync takes it; a sync that
 * took it and did not succeed sets it again when it gives the permit back.
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
     * The first failed flush of this open, or null. Linux reports a writeback error once and marks the pages
     * clean, so a later flush of the same fd succeeds without them: every sync after a failure fails too.
     */
    private volatile String failedFlush;
    /** Flushes issued so far; incremented by the holder only, read by any worker admitting a sync. */
    private final AtomicLong flushesIssued = new AtomicLong();
    /**
     * The highest flush that succeeded, or 0. Written by the holder before it releases the permit, so a worker
     * nudged by that release reads it.
     */
    private volatile long flushedThrough;
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
     * Flushes issued on this open so far (each one {@code fdatasync}): with syncs grouped, fewer than the syncs
     * that completed. For benchmarks and tests.
     *
     * @return the count
     */
    public long flushes() {
        return flushesIssued.get();
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

    /**
     * A flush of this open failed: every later sync of it fails ({@link #failure()}), since the data the failed
     * flush dropped cannot be made durable through this open any more.
     *
     * @param what the failure, for the messages of later syncs
     */
    void poison(String what) {
        if (failedFlush == null) {
            failedFlush = what;
        }
    }

    /**
     * The failed flush that poisoned this open, or null.
     *
     * @return what failed, or null
     */
    String failure() {
        return failedFlush;
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
     * The ticket of a sync admitted now: the number of the first flush issued from now on.
     *
     * @return the ticket, at least 1
     */
    public long ticket() {
        return flushesIssued.get() + 1;
    }

    /**
     * Whether a flush that covers {@code ticket} has succeeded.
     *
     * @param ticket a sync's ticket
     * @return true if that sync is durable already
     */
    public boolean covers(long ticket) {
        return flushedThrough >= ticket;
    }

    /**
     * Numbers the flush the holder is about to issue; called with the permit held, before the
     * {@code fdatasync} is submitted, so a sync admitted after this call waits for a later flush.
     *
     * @return the flush's number
     */
    public long startFlush() {
        return flushesIssued.incrementAndGet();
    }

    /**
     * Flush {@code flush} succeeded: every sync with a ticket up to it is durable. Called by the holder before
     * it releases the permit.
     *
     * @param flush the flush's number
     */
    public void flushed(long flush) {
        // After a failed flush no later one covers anybody: what the failure dropped is not in it.
        if (failedFlush == null && flush > flushedThrough) {
            flushedThrough = flush;
        }
    }

    /**
     * {@code worker} has a sync waiting for the permit; called by that worker only, before it tries the permit.
     *
     * @param worker the calling worker
     */
    public void addWaiter(Worker worker) {
        if (!waiting.contains(worker)) {
            waiting.add(worker);
        }
    }

    /**
     * {@code worker} has no sync waiting any more; called by that worker only.
     *
     * @param worker the calling worker
     */
    public void removeWaiter(Worker worker) {
        waiting.remove(worker);
    }
}
