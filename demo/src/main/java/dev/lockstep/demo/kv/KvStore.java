package dev.lockstep.demo.kv;

import dev.lockstep.BlobCorruptException;
import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.TimeoutException;
import dev.lockstep.demo.kv.KvOptions.Durability;
import dev.lockstep.sync.OneShot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The durable key-value store: an append-only log of segments, an in-memory index rebuilt on open, group
 * commit, acknowledgement after sync. See the package documentation for the format and the durability argument.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #put} and {@link #delete} return only once the record is durable (its batch's sync completed);
 *       a write that throws may or may not be in the log. With {@link Durability#SYNC_EVERY_SECOND} they return
 *       once the record is written, and a sync started every second makes it durable: every write
 *       acknowledged before a sync started is durable once that sync ends, and while a sync has run longer
 *       than a second no write is acknowledged until it ends. So a crash loses at most the writes acknowledged
 *       in two seconds of the store's time: the second after the last sync that completed started, and the
 *       first second of the sync after it (what Redis's {@code appendfsync everysec} bounds too, by holding
 *       writes when an fsync lags).</li>
 *   <li>{@link #submitPut} starts a put without waiting for it, so that one caller can have many in flight (a
 *       pipelining client); they commit in the order submitted.</li>
 *   <li>{@link #get} sees exactly the acknowledged writes, in sequence order.</li>
 *   <li>After a write or sync failure the store is <em>poisoned</em>: every later call throws
 *       {@link StoreUnavailableException}. Close it and {@link #open} it again: recovery decides from the disk.
 *       Retrying a failed fsync on the same open is not safe on Linux, so the store never does.</li>
 * </ul>
 *
 * <h2>Group commit</h2>
 * A write joins the open {@code Batch}. Batches commit one at a time, in order, each with one {@code writeAt} of
 * all its records and one sync; the fiber that awaits a write commits its batch itself when no commit is running
 * (it seals the open batch, so writes arriving meanwhile fill the next one), and otherwise waits for the running
 * commit to end. So a lone writer commits without a hand-off to another fiber, and under load many writes share
 * one sync. A put that nobody awaits ({@link #submitPut}) is committed by the next await of a later write, by the
 * once-a-second sync, or not at all when the store closes first (it was never acknowledged). {@code CommitLine}
 * holds the batches in line, the turn and the steps of an unfinished commit.
 *
 * <h2>A committer that is aborted or times out</h2>
 * The committing fiber's task may be aborted, or its {@code Clock.timeout} expire, in the middle of a commit's
 * I/O. That fiber's write then throws (its fate unknown, as for any failed write), but the store is not poisoned:
 * the batch stays first in line, and the next fiber to await a write commits it again from where it stopped. Every
 * step of an append writes the same bytes at the same place as before ({@code SegmentLog} advances its tail and
 * its manifest only once a step completed), so a step redone after one that was cancelled, even one the kernel
 * still finishes later, leaves the log as one run of it would.
 *
 * <h2>Threads</h2>
 * Any fiber of the runtime that opened the store may call it. {@code lock} guards the index, the failure and the
 * counters here, and the open batch and the running commit in {@code CommitLine}, which shares it; it is never held
 * across an {@code await}. The log on disk ({@code SegmentLog}: the manifest, the segments, the tail) is appended
 * to only by the fiber that holds the commit ({@code turn}), one at a time.
 */
public final class KvStore implements AutoCloseable {
    /** The name of the manifest blob. */
    public static final String MANIFEST = "MANIFEST";

    /** How often {@link Durability#SYNC_EVERY_SECOND} starts a sync. */
    private static final long SYNC_INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();

    /** How long a sync of {@link Durability#SYNC_EVERY_SECOND} may run before writes wait for it to end. */
    private static final long SYNC_LAG_LIMIT_NANOS = Duration.ofSeconds(1).toNanos();

    /**
     * What recovery found and did.
     *
     * @param segments listed segments replayed
     * @param records records replayed (puts and deletes)
     * @param keys live keys after replay
     * @param truncatedBytes bytes of torn tail removed from the last segment
     * @param manifestTruncatedBytes bytes of torn tail removed from the manifest
     * @param removedSegments unlisted segments (leftovers of an interrupted roll) removed; the one after the last
     *     listed segment stays, opened ahead for the next roll
     */
    public record Recovery(int segments, long records, int keys, long truncatedBytes, long manifestTruncatedBytes,
                           int removedSegments) {
        @Override
        public String toString() {
            return segments + " segment(s), " + records + " record(s), " + keys + " key(s); torn tail truncated: "
                    + truncatedBytes + " B" + (manifestTruncatedBytes > 0 ? ", manifest tail: "
                    + manifestTruncatedBytes + " B" : "") + (removedSegments > 0 ? ", unlisted segments removed: "
                    + removedSegments : "");
        }
    }

    /**
     * Counters since open.
     *
     * @param puts acknowledged puts
     * @param deletes acknowledged deletes
     * @param gets gets served
     * @param syncs batches committed with a sync (with {@link Durability#SYNC_EVERY_SECOND}, the once-a-second
     *              syncs that completed)
     * @param bytesAppended log bytes written
     * @param segmentsRolled segments created
     */
    public record Stats(long puts, long deletes, long gets, long syncs, long bytesAppended, long segmentsRolled) {
    }

    /** Where a live value is. */
    private record Location(SegmentLog.Segment segment, long offset, int length) {
    }

    /**
     * A key with content equality and its hash computed once: the index rehashes every key as it grows, and a
     * lookup compares hashes before bytes.
     */
    private static final class Key {
        private final byte[] bytes;
        private final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        byte[] bytes() {
            return bytes;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && hash == key.hash && Arrays.equals(bytes, key.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * A put submitted with {@link #submitPut} and not yet awaited. Any fiber of the store's runtime may await it,
     * once or more.
     */
    public static final class Submitted {
        private final CommitLine line;
        private final CommitLine.Batch batch;

        private Submitted(CommitLine line, CommitLine.Batch batch) {
            this.line = line;
            this.batch = batch;
        }

        /**
         * Returns once the put is acknowledged: durable, or written for {@link Durability#SYNC_EVERY_SECOND}.
         *
         * @throws StoreUnavailableException as {@link #put}
         */
        public void await() {
            line.awaitCommit(batch);
        }
    }

    private final Context spawner;
    private final KvOptions options;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Key, Location> index = new HashMap<>();
    private SegmentLog log;
    private CommitLine line;
    private Recovery recovery;
    private Handle<Void> syncer;
    /** The highest sequence number recovery replayed: touched only by recovery, before the store is shared. */
    private long lastSequence;

    // Guarded by lock.
    private RuntimeException failure;
    private long puts;
    private long deletes;
    private long gets;
    private long syncs;
    private long bytesAppended;
    /** The syncer's sync in flight, completed when it ends however it ends; null while none runs. */
    private OneShot<Void> syncEnded;
    /** When the sync in flight started ({@link Context#monotonicNanos}). */
    private long syncStartedNanos;

    private KvStore(Context ctx, KvOptions options) {
        this.spawner = ctx.child("kv");
        this.options = options;
    }

    /**
     * Opens the store, recovering it from what the partition holds, creating it if empty.
     *
     * <p>{@code ctx} is used to open the store's blobs and, with {@link Durability#SYNC_EVERY_SECOND}, to spawn its
     * syncer below a child node: the store works as long as the task that owns {@code ctx} runs. Writes are
     * committed by the fibers that await them (see Group commit).
     *
     * @param ctx the opening task's context
     * @param options the layout
     * @return the open store
     * @throws dev.lockstep.StorageException if recovery could not read or repair the log (a fault); retry
     * @throws BlobCorruptException if the log is corrupt beyond a torn tail
     */
    public static KvStore open(Context ctx, KvOptions options) {
        KvStore store = new KvStore(ctx, options);
        SegmentLog.Recovered recovered = SegmentLog.recover(ctx, options, store::apply);
        store.log = recovered.log();
        store.line = new CommitLine(store, store.lock, store.log, options, store.lastSequence);
        SegmentLog.Replayed replayed = recovered.replayed();
        store.recovery = new Recovery(replayed.segments(), replayed.records(), store.index.size(),
                replayed.truncatedBytes(), replayed.manifestTruncatedBytes(), replayed.removedSegments());
        if (options.durability() == Durability.SYNC_EVERY_SECOND) {
            store.syncer = store.spawner.child("syncer").spawn(store::syncEverySecond);
        }
        return store;
    }

    /**
     * What recovery found when this store was opened.
     *
     * @return the report
     */
    public Recovery recovery() {
        return recovery;
    }

    /**
     * The options.
     *
     * @return them
     */
    public KvOptions options() {
        return options;
    }

    private void apply(Records.Decoded record, SegmentLog.Segment segment, long offset) {
        Key key = new Key(record.key());
        if (record.type() == Records.PUT) {
            index.put(key, new Location(segment, offset, record.totalBytes()));
        } else {
            index.remove(key);
        }
        lastSequence = Math.max(lastSequence, record.sequence());
    }

    /**
     * Stores {@code value} under {@code key}; returns once it is durable.
     *
     * @param key 1 to {@value Records#MAX_KEY_BYTES} bytes
     * @param value up to {@value Records#MAX_VALUE_BYTES} bytes
     * @throws IllegalArgumentException for a bad key or value length
     * @throws StoreUnavailableException if the store is poisoned or closed, or the write failed (fate unknown)
     */
    public void put(byte[] key, byte[] value) {
        checkKey(key);
        if (value.length > Records.MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value must be at most " + Records.MAX_VALUE_BYTES
                    + " bytes, was " + value.length);
        }
        line.awaitCommit(line.enqueue(new CommitLine.Pending(Records.PUT, key.clone(), value)));
    }

    /**
     * Starts storing {@code value} under {@code key} and returns at once; {@link Submitted#await} returns when
     * {@link #put} would. Puts and deletes commit in the order they are called, so a get after awaiting a put sees
     * it, and a caller may keep many puts in flight and await them in order.
     *
     * @param key 1 to {@value Records#MAX_KEY_BYTES} bytes
     * @param value up to {@value Records#MAX_VALUE_BYTES} bytes
     * @return the put in flight
     * @throws IllegalArgumentException for a bad key or value length
     * @throws StoreUnavailableException if the store is poisoned or closed
     */
    public Submitted submitPut(byte[] key, byte[] value) {
        checkKey(key);
        if (value.length > Records.MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value must be at most " + Records.MAX_VALUE_BYTES
                    + " bytes, was " + value.length);
        }
        return new Submitted(line, line.enqueue(new CommitLine.Pending(Records.PUT, key.clone(), value)));
    }

    /**
     * Removes {@code key}; returns once the removal is durable. Removing a missing key writes a tombstone too.
     *
     * @param key 1 to {@value Records#MAX_KEY_BYTES} bytes
     * @throws StoreUnavailableException as {@link #put}
     */
    public void delete(byte[] key) {
        checkKey(key);
        line.awaitCommit(line.enqueue(new CommitLine.Pending(Records.DELETE, key.clone(), null)));
    }

    private static void checkKey(byte[] key) {
        if (key.length == 0 || key.length > Records.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be 1 to " + Records.MAX_KEY_BYTES + " bytes, was "
                    + key.length);
        }
    }

    private StoreUnavailableException unavailable() {
        return new StoreUnavailableException("store '" + options.partition() + "' is unavailable: "
                + failure.getMessage(), failure);
    }

    /** With {@code lock} held: what a write is told now that the store is poisoned or closed, or null if not. */
    StoreUnavailableException unavailableOrNull() {
        return failure == null ? null : unavailable();
    }

    /**
     * With {@code lock} held, by the commit line once {@code batch} is appended (and synced as its durability
     * asks): makes its writes visible to gets and counts them.
     */
    void indexCommitted(CommitLine.Batch batch) {
        long position = batch.offset;
        for (CommitLine.Pending pending : batch.entries) {
            Key key = new Key(pending.key);
            if (pending.type == Records.PUT) {
                index.put(key, new Location(batch.segment, position, pending.encoded.length));
                puts++;
            } else {
                index.remove(key);
                deletes++;
            }
            position += pending.encoded.length;
        }
        if (batch.synced) {
            syncs++;
        }
        bytesAppended += batch.chunkBytes;
    }

    /**
     * The task of {@link Durability#SYNC_EVERY_SECOND}: starts a sync on fixed deadlines a second apart (at once
     * when the previous sync ran past its deadline). A sync writes every batch in line (an empty batch awaited in
     * its turn, so that puts submitted and never awaited are written too), then syncs the log outside the commit's
     * turn, so that writers go on appending and being acknowledged while the sync runs, as Redis's
     * {@code appendfsync everysec} syncs on a thread of its own. Every write acknowledged before the sync started is
     * durable when it ends ({@code SegmentLog.syncCurrent}). Once the sync has run longer than
     * {@link #SYNC_LAG_LIMIT_NANOS}, commits wait for it to end before they acknowledge ({@link #awaitLaggingSync}).
     * A failed sync poisons the store; ends when the store is closed or poisoned.
     */
    private Void syncEverySecond(Context c) {
        long deadline = c.monotonicNanos() + SYNC_INTERVAL_NANOS;
        while (true) {
            long wait = deadline - c.monotonicNanos();
            if (wait > 0) {
                c.sleep(Duration.ofNanos(wait));
            }
            OneShot<Void> ended = null;
            boolean synced = false;
            try {
                line.awaitCommit(line.enqueue(null));
                // Published only after the syncer's own commit: a committer holding the turn never waits for a sync
                // that waits for that turn.
                ended = new OneShot<>();
                lock.lock();
                try {
                    syncEnded = ended;
                    syncStartedNanos = c.monotonicNanos();
                } finally {
                    lock.unlock();
                }
                log.syncCurrent();
                synced = true;
            } catch (StoreUnavailableException closedOrPoisoned) {
                return null;
            } catch (ClosedException | TimeoutException stopping) {
                throw stopping;
            } catch (RuntimeException failed) {
                poison(failed);
                return null;
            } finally {
                if (ended != null) {
                    lock.lock();
                    try {
                        syncEnded = null;
                        if (synced) {
                            syncs++;
                        }
                    } finally {
                        lock.unlock();
                    }
                    // After the store's failure is set (a failed sync poisons it first): a held committer that
                    // wakes sees it. A committer that looked before syncEnded was cleared holds this one-shot, and
                    // get() on a completed one-shot returns at once: no wake-up is lost.
                    ended.complete(null);
                }
            }
            deadline = Math.max(deadline + SYNC_INTERVAL_NANOS, c.monotonicNanos());
        }
    }

    /**
     * With {@link Durability#SYNC_EVERY_SECOND}, by the fiber holding the commit, before its batch is acknowledged:
     * waits for the syncer's sync to end if it has run longer than {@link #SYNC_LAG_LIMIT_NANOS}, so that a stalled
     * sync stops acknowledgements instead of letting unsynced acknowledged writes pile up.
     *
     * @throws StoreUnavailableException if the store was poisoned or closed meanwhile
     */
    void awaitLaggingSync() {
        OneShot<Void> lagging = null;
        lock.lock();
        try {
            if (syncEnded != null && spawner.monotonicNanos() - syncStartedNanos > SYNC_LAG_LIMIT_NANOS) {
                lagging = syncEnded;
            }
        } finally {
            lock.unlock();
        }
        if (lagging == null) {
            return;
        }
        lagging.get().await();
        lock.lock();
        try {
            if (failure != null) {
                throw unavailable();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Poisons the store with {@code cause} unless it already is; called by the commit line on a failed write. */
    void poison(RuntimeException cause) {
        lock.lock();
        try {
            if (failure == null) {
                failure = cause;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The value of {@code key}, read from the log.
     *
     * @param key the key
     * @return the value, or null if absent
     * @throws StoreUnavailableException if the store is poisoned or closed
     * @throws dev.lockstep.StorageException if the read failed
     * @throws BlobCorruptException if the record on disk does not match its checksum
     */
    public byte[] get(byte[] key) {
        checkKey(key);
        Location location;
        lock.lock();
        try {
            if (failure != null) {
                throw unavailable();
            }
            location = index.get(new Key(key));
            gets++;
        } finally {
            lock.unlock();
        }
        if (location == null) {
            return null;
        }
        byte[] bytes = location.segment().blob().readAt(location.offset(), location.length()).await();
        Records.Decoded record = Records.decode(bytes, 0, bytes.length,
                options.bug() != InjectedBug.SKIP_TORN_TAIL_CHECK);
        if (record == null || !Arrays.equals(record.key(), key)) {
            throw new BlobCorruptException("record of " + location.length() + " bytes at offset "
                    + location.offset() + " of segment " + Records.segmentName(location.segment().id())
                    + " is corrupt");
        }
        return Arrays.copyOfRange(bytes, record.valueOffset(), record.valueOffset() + record.valueLength());
    }

    /**
     * Whether a write or sync failed (or the store was closed): it then serves nothing until reopened.
     *
     * @return true if poisoned
     */
    public boolean isPoisoned() {
        lock.lock();
        try {
            return failure != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * What poisoned the store, if anything.
     *
     * @return the failure, or null while the store is healthy
     */
    public Throwable failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The number of live keys.
     *
     * @return the count
     */
    public int size() {
        lock.lock();
        try {
            return index.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The live keys, in no particular order.
     *
     * @return a copy
     */
    public List<byte[]> keys() {
        lock.lock();
        try {
            List<byte[]> keys = new ArrayList<>(index.size());
            for (Key key : index.keySet()) {
                keys.add(key.bytes().clone());
            }
            return keys;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The counters since open.
     *
     * @return a snapshot
     */
    public Stats stats() {
        lock.lock();
        try {
            return new Stats(puts, deletes, gets, syncs, bytesAppended, log.rolled());
        } finally {
            lock.unlock();
        }
    }

    /** Whether the every-second syncer has ended (true without one): so it has once {@link #close} returned. */
    boolean syncerEnded() {
        return syncer == null || syncer.isDone();
    }

    /**
     * Stops taking writes, fails the writes no commit has taken yet (never acknowledged, so never in the log as far
     * as their writers know), stops the syncer of {@link Durability#SYNC_EVERY_SECOND} and waits for it and for the
     * commit in flight, and closes every blob: once it returns, nothing of the store runs. Acknowledged writes are
     * already durable, so there is no final sync; with {@link Durability#SYNC_EVERY_SECOND} the writes acknowledged
     * since the last sync started are in the page cache, and a clean close does not sync them either (as a kill
     * would not). Idempotent.
     */
    @Override
    public void close() {
        OneShot<Void> running;
        lock.lock();
        try {
            if (failure == null) {
                failure = new StoreUnavailableException("store '" + options.partition() + "' is closed", null);
            }
            // Nothing in line will commit now: its writers are told so when they next look.
            running = line.failEveryBatchInLine(unavailable());
        } finally {
            lock.unlock();
        }
        // The syncer may be syncing a segment, or about to, and a commit may be held waiting for its sync: aborted
        // first, it ends its sync (which releases a held commit), and both must end before the blobs close under
        // them. Its handle is done only once its body has ended (an abort stops it at its next await), so after
        // the await it touches neither the store nor the log again.
        if (syncer != null) {
            syncer.abort();
        }
        try {
            if (running != null) {
                try {
                    running.get().await();
                } catch (ClosedException stopping) {
                    // The runtime is stopping: the commit's own I/O ends with it.
                }
            }
            if (syncer != null) {
                try {
                    syncer.await();
                } catch (ClosedException aborted) {
                    // How an aborted syncer ends, or this fiber's own task is stopping.
                }
            }
        } finally {
            log.closeBlobs();
        }
    }
}
