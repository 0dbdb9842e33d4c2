package dev.lockstep.demo.kv;

import dev.lockstep.ClosedException;
import dev.lockstep.TimeoutException;
import dev.lockstep.demo.kv.KvOptions.Durability;
import dev.lockstep.sync.OneShot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store's group commit: the batches in line, the turn that lets one fiber at a time commit, and the steps of
 * a commit that an interrupted committer left for the next one. {@link KvStore} adds writes with {@link #enqueue}
 * and waits for them with {@link #awaitCommit}; see its documentation ("Group commit", "A committer that is aborted
 * or times out") for what callers see.
 *
 * <h2>Threads</h2>
 * Any fiber of the store's runtime may call it. {@code lock} is the store's: it guards the open batch, the batches
 * in line, the running commit and the sequence numbers here, as well as the store's index, counters and failure,
 * so that a batch becomes visible to gets in the same step as it is marked committed; it is never held across an
 * {@code await}. The log on disk ({@code SegmentLog}: the manifest, the segments, the tail) is appended to only by
 * the fiber that holds the commit ({@code turn}), one at a time.
 */
final class CommitLine {
    /**
     * One write waiting in a batch: its record encoded when submitted (the key and value copied once, there),
     * numbered and checksummed when its batch commits ({@link Records#seal}).
     */
    static final class Pending {
        final byte type;
        final byte[] key;
        final byte[] encoded;

        /**
         * @param key the key, owned by the write from now on (the index keeps it)
         * @param value the value, copied here; null for a delete
         */
        Pending(byte type, byte[] key, byte[] value) {
            this.type = type;
            this.key = key;
            this.encoded = Records.encodeUnsealed(type, key, value);
        }
    }

    /**
     * A group of writes committed with one write and one sync. Its fields are guarded by the store's lock, except
     * the commit's progress ({@code chunks} to {@code synced}), touched only by the fiber holding the commit.
     */
    static final class Batch {
        final List<Pending> entries = new ArrayList<>();
        long bytes;
        /** Set once the batch is committed. */
        boolean committed;
        /** Set if the batch will never commit: what its writers are told. */
        StoreUnavailableException failed;
        /** The encoded records, from the commit's first attempt on (sequence numbers are given once). */
        byte[][] chunks;
        long chunkBytes;
        /** Where the records went, once appended. */
        SegmentLog.Segment segment;
        long offset = -1;
        boolean synced;
    }

    private final KvStore store;
    private final ReentrantLock lock;
    private final SegmentLog log;
    private final KvOptions options;

    // Guarded by lock.
    private Batch open;
    /**
     * The running commit, or null: completed by the fiber holding it when it stops (the batch committed, failed, or
     * its fiber was interrupted), which wakes every fiber waiting for a turn.
     */
    private OneShot<Void> turn;
    /** A batch whose committer was interrupted: the next commit finishes it first. */
    private Batch resumable;
    /** Full batches waiting, in order, behind the running commit and before {@code open}. */
    private final ArrayDeque<Batch> queued = new ArrayDeque<>();
    private long lastSequence;

    /**
     * @param store the store whose index a committed batch updates ({@link KvStore#indexCommitted}) and whose
     *              failure stops the line
     * @param lock the store's lock
     * @param log the recovered log
     * @param options the layout and durability
     * @param lastSequence the highest sequence number recovery replayed; the next record gets the one after it
     */
    CommitLine(KvStore store, ReentrantLock lock, SegmentLog log, KvOptions options, long lastSequence) {
        this.store = store;
        this.lock = lock;
        this.log = log;
        this.options = options;
        this.lastSequence = lastSequence;
    }

    /**
     * Adds {@code pending} to the open batch, opening one if needed; with null, returns the open batch (or a new,
     * empty one), whose commit writes everything in line before it.
     *
     * @throws StoreUnavailableException if the store is poisoned or closed
     */
    Batch enqueue(Pending pending) {
        lock.lock();
        try {
            StoreUnavailableException unavailable = store.unavailableOrNull();
            if (unavailable != null) {
                throw unavailable;
            }
            int size = pending == null ? 0 : pending.encoded.length;
            if (open == null || (open.bytes + size > options.maxBatchBytes() && !open.entries.isEmpty())) {
                // A full batch stays queued behind the running commit; the new one commits after it.
                if (open != null) {
                    queued.add(open);
                }
                open = new Batch();
            }
            if (pending != null) {
                open.entries.add(pending);
                open.bytes += size;
            }
            return open;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns once {@code batch} is committed, committing it (and any batch before it) on this fiber when no
     * commit is running.
     *
     * <p>No lost wake-up: a fiber decides under {@code lock} either to take the commit (no {@code turn} running)
     * or to wait for the running {@code turn}; the fiber holding a turn clears it under the same lock before it
     * completes it, and {@link OneShot#get} completes at once for a one-shot completed before the wait began. So a
     * waiter either sees the turn it waits for end, or finds no turn the next time it looks.
     *
     * @throws StoreUnavailableException if the batch will never commit (the store is poisoned or closed)
     * @throws ClosedException if this fiber's task is aborted while it commits or waits
     * @throws TimeoutException if this fiber's timeout expires while it commits or waits
     */
    void awaitCommit(Batch batch) {
        while (true) {
            Batch head = null;
            OneShot<Void> running;
            lock.lock();
            try {
                if (batch.committed) {
                    return;
                }
                if (batch.failed != null) {
                    throw new StoreUnavailableException(batch.failed.getMessage(), batch.failed.getCause());
                }
                if (turn == null) {
                    head = takeHead();
                    turn = new OneShot<>();
                }
                running = turn;
            } finally {
                lock.unlock();
            }
            if (head != null) {
                commitHolding(head, running);
            } else {
                try {
                    running.get().await();
                } catch (StoreUnavailableException notOurs) {
                    // Turns are only ever completed; kept for the contract of get.
                }
            }
        }
    }

    /**
     * With {@code lock} held, once the store is poisoned or closed: fails every batch in line with {@code closed}
     * (their writers are told so when they next look) and returns the running commit, or null.
     */
    OneShot<Void> failEveryBatchInLine(StoreUnavailableException closed) {
        for (Batch batch = takeHead(); batch != null; batch = takeHead()) {
            batch.failed = closed;
        }
        return turn;
    }

    /** The first batch in line, taken off it: one a committer left unfinished, a full one, or the open one. */
    private Batch takeHead() {
        Batch head;
        if (resumable != null) {
            head = resumable;
            resumable = null;
        } else if (!queued.isEmpty()) {
            head = queued.poll();
        } else {
            head = open;
            open = null;
        }
        return head;
    }

    /**
     * Commits {@code batch} on this fiber, which holds {@code held}; ends the turn whatever happens. An abort or
     * timeout of this fiber puts the batch back first in line and rethrows (see the store's documentation); any
     * other failure poisons the store and fails the batch.
     */
    private void commitHolding(Batch batch, OneShot<Void> held) {
        Batch unfinished = null;
        try {
            commit(batch);
        } catch (ClosedException | TimeoutException interrupted) {
            unfinished = batch;
            throw interrupted;
        } finally {
            lock.lock();
            try {
                if (unfinished != null) {
                    batch.failed = store.unavailableOrNull();
                    if (batch.failed == null) {
                        resumable = unfinished;
                    }
                }
                turn = null;
            } finally {
                lock.unlock();
            }
            held.complete(null);
        }
    }

    /** Commits {@code batch}, or finishes a commit an interrupted fiber left, from the step it stopped at. */
    private void commit(Batch batch) {
        lock.lock();
        try {
            batch.failed = store.unavailableOrNull();
            if (batch.failed != null) {
                return;
            }
            if (batch.chunks == null) {
                byte[][] chunks = new byte[batch.entries.size()][];
                long bytes = 0;
                for (int i = 0; i < chunks.length; i++) {
                    Pending pending = batch.entries.get(i);
                    Records.seal(pending.encoded, ++lastSequence);
                    chunks[i] = pending.encoded;
                    bytes += chunks[i].length;
                }
                batch.chunkBytes = bytes;
                batch.chunks = chunks;
            }
        } finally {
            lock.unlock();
        }
        try {
            if (batch.segment == null) {
                batch.segment = log.append(batch.chunks, batch.chunkBytes);
                batch.offset = log.tail() - batch.chunkBytes;
            }
            if (!batch.synced) {
                if (options.bug() == InjectedBug.ACK_BEFORE_SYNC) {
                    log.startSyncWithoutWaiting();
                    batch.synced = true;
                } else if (options.durability() == Durability.SYNC_BEFORE_ACK) {
                    log.sync();
                    batch.synced = true;
                } else {
                    store.awaitLaggingSync();
                }
            }
        } catch (ClosedException | TimeoutException interrupted) {
            throw interrupted;
        } catch (RuntimeException failed) {
            store.poison(failed);
            lock.lock();
            try {
                batch.failed = store.unavailableOrNull();
            } finally {
                lock.unlock();
            }
            return;
        }
        lock.lock();
        try {
            store.indexCommitted(batch);
            batch.committed = true;
        } finally {
            lock.unlock();
        }
    }
}
