package dev.lockstep.demo.kv;

import dev.lockstep.Blob;
import dev.lockstep.BlobCorruptException;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.StorageException;
import dev.lockstep.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store's log on disk: the manifest and the segments it lists, the segment being appended to and its tail.
 * {@link #recover} reads it back on open; {@link #append} and {@link #sync} write it; {@link #roll} adds a segment.
 * {@link KvStore} and its {@link CommitLine} own what the log means (the index, the batches, acknowledgements);
 * this class owns where the bytes go and in what order they become durable (see the package documentation).
 *
 * <h2>Threads</h2>
 * The tail is touched only by the batch that is committing (batches commit one at a time) and by recovery, before
 * the store is shared. The list of segments is also read by {@link #closeBlobs}, from any fiber: {@code lock}
 * guards it and is never held across an {@code await}.
 */
final class SegmentLog {
    /** One open segment. */
    record Segment(long id, Blob blob) {
    }

    /** What recovery read and repaired. */
    record Replayed(int segments, long records, long truncatedBytes, long manifestTruncatedBytes,
                    int removedSegments) {
    }

    /** Told each record recovery replays, in log order. */
    interface Replay {
        void record(Records.Decoded record, Segment segment, long offset);
    }

    private final Context ctx;
    private final KvOptions options;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Segment> segments = new ArrayList<>(); // guarded by lock
    private long rolled; // guarded by lock
    private Blob manifest;
    private long manifestLength;

    /**
     * The segment being appended to: written by the committing batch when it rolls (and by recovery, before the
     * store is shared), read by it and by {@link #syncCurrent} on the syncer's fiber, which may run on another
     * worker while a batch commits; volatile so that the syncer sees the latest roll.
     */
    private volatile Segment current;
    // Touched only by the committing batch (and by recovery, before the store is shared).
    private long tail;
    private boolean unsynced;
    /**
     * The open of the segment after {@link #current}, started when that segment became current so that the next
     * roll finds it created (the open makes the blob and its directory entry durable, a sync or two of its own)
     * instead of waiting for it while the commit holds. Until the manifest lists it, it is no part of the log:
     * recovery removes a segment the manifest does not list. Null while none is started. Set and taken by whoever
     * touches the tail, under {@code lock} because {@link #closeBlobs} takes it from any fiber and closes it,
     * which closes the blob too if the open completed unobserved.
     */
    private Operation<OpenedBlob> nextOpening; // guarded by lock
    private long nextOpeningId; // guarded by lock

    private SegmentLog(Context ctx, KvOptions options) {
        this.ctx = ctx;
        this.options = options;
    }

    /**
     * Opens the log of {@code options.partition()}, replaying every listed segment into {@code replay}; creates
     * the first segment of an empty partition. On failure every blob it opened is closed.
     *
     * @throws dev.lockstep.StorageException if the log could not be read or repaired (a fault)
     * @throws BlobCorruptException if it is corrupt beyond a torn tail
     */
    static Recovered recover(Context ctx, KvOptions options, Replay replay) {
        SegmentLog log = new SegmentLog(ctx, options);
        try {
            return new Recovered(log, log.replay(replay));
        } catch (RuntimeException failure) {
            log.closeBlobs();
            throw failure;
        }
    }

    /** The log, open, and what recovery did. */
    record Recovered(SegmentLog log, Replayed replayed) {
    }

    private Replayed replay(Replay replay) {
        String partition = options.partition();
        boolean verify = options.bug() != InjectedBug.SKIP_TORN_TAIL_CHECK;
        OpenedBlob openedManifest = ctx.open(partition, KvStore.MANIFEST).await();
        manifest = openedManifest.blob();
        byte[] listing = readAll(manifest, openedManifest.length());
        List<Long> listed = new ArrayList<>();
        int entryOffset = 0;
        long id;
        while ((id = Records.manifestEntryAt(listing, entryOffset)) > 0) {
            if (!listed.isEmpty() && id <= listed.getLast()) {
                throw new BlobCorruptException("manifest of partition '" + partition + "' lists segment " + id
                        + " after segment " + listed.getLast() + " at offset " + entryOffset);
            }
            listed.add(id);
            entryOffset += Records.MANIFEST_ENTRY_BYTES;
        }
        long manifestTruncated = listing.length - entryOffset;
        if (manifestTruncated > 0) {
            manifest.resize(entryOffset).await();
        }
        manifestLength = entryOffset;
        // What recovery reads may be in the page cache only: a poisoned store is reopened in the same process, and
        // the write or sync that poisoned it may have left bytes behind that no sync will write: Linux marks the
        // pages of a failed writeback clean, so syncing them again would succeed without them. Rewrite what was
        // read, which dirties those pages again, then sync. Only the manifest and the last segment can hold such
        // bytes: a segment is synced before the store rolls past it.
        if (entryOffset > 0) {
            manifest.writeAt(0, Arrays.copyOf(listing, entryOffset)).await();
        }
        if (entryOffset > 0 || manifestTruncated > 0) {
            manifest.sync().await();
        }

        int removed = 0;
        // The segment after the last listed one is the one opened ahead for the next roll (nextOpening), or the
        // leftover of an interrupted roll: either way the roll that lists it first empties it and writes its
        // header, so it stays, for the open started below to find. Any other unlisted segment goes.
        long openedAhead = (listed.isEmpty() ? 0 : listed.getLast()) + 1;
        for (byte[] name : ctx.scan(partition).await()) {
            long segmentId = Records.segmentIdOf(new String(name, StandardCharsets.UTF_8));
            if (segmentId > 0 && segmentId != openedAhead && !listed.contains(segmentId)) {
                ctx.remove(partition, name).await();
                removed++;
            }
        }

        long records = 0;
        long truncated = 0;
        for (int i = 0; i < listed.size(); i++) {
            long segmentId = listed.get(i);
            boolean last = i == listed.size() - 1;
            String name = Records.segmentName(segmentId);
            OpenedBlob opened = ctx.open(partition, name).await();
            Segment segment = new Segment(segmentId, opened.blob());
            add(segment);
            byte[] bytes = readAll(segment.blob(), opened.length());
            if (!Records.validSegmentHeader(bytes, segmentId)) {
                throw new BlobCorruptException("segment '" + partition + "/" + name + "' has no valid header ("
                        + bytes.length + " bytes)");
            }
            int offset = Records.SEGMENT_HEADER_BYTES;
            Records.Decoded record;
            while ((record = Records.decode(bytes, offset, bytes.length, verify)) != null) {
                replay.record(record, segment, offset);
                records++;
                offset += record.totalBytes();
            }
            if (offset < bytes.length && verify) {
                if (!last) {
                    throw new BlobCorruptException("sealed segment '" + partition + "/" + name + "' has "
                            + (bytes.length - offset) + " invalid bytes at offset " + offset);
                }
                // A torn tail: a batch that was being written when the process stopped. It was never
                // acknowledged; cut it off durably before anything is appended after it.
                segment.blob().resize(offset).await();
                truncated += bytes.length - offset;
            } else if (offset < bytes.length) {
                offset = bytes.length; // InjectedBug.SKIP_TORN_TAIL_CHECK: keep the garbage, append after it.
            }
            if (last) {
                // As for the manifest: rewrite what was read, so the sync covers it (see above).
                segment.blob().writeAt(0, Arrays.copyOf(bytes, offset)).await();
                segment.blob().sync().await();
                current = segment;
                tail = offset;
            }
        }
        if (listed.isEmpty()) {
            roll();
        } else {
            startOpeningNext();
        }
        return new Replayed(listed.size(), records, truncated, manifestTruncated, removed);
    }

    private static byte[] readAll(Blob blob, long length) {
        if (length > Integer.MAX_VALUE - 16) {
            throw new BlobCorruptException("blob of " + length + " bytes is larger than any segment may be");
        }
        return blob.readAt(0, (int) length).await();
    }

    private void add(Segment segment) {
        lock.lock();
        try {
            segments.add(segment);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends {@code chunks} ({@code bytes} in all) at the tail, rolling to a new segment first when they would
     * take the current one past its size; syncs nothing.
     *
     * @return the segment and offset the first chunk went to
     */
    Segment append(byte[][] chunks, long bytes) {
        if (tail + bytes > options.segmentBytes() && tail > Records.SEGMENT_HEADER_BYTES) {
            roll();
        }
        if (bytes > 0) {
            current.blob().writeAt(tail, chunks, WriteOptions.NONE).await();
            unsynced = true;
        }
        tail += bytes;
        return current;
    }

    /** Where the next append goes in the current segment (before a roll it may make). */
    long tail() {
        return tail;
    }

    /** Makes the current segment durable. */
    void sync() {
        current.blob().sync().await();
        unsynced = false;
    }

    /**
     * Makes durable every append that completed before the call, without holding the commit: may run while a batch
     * appends or rolls, and appends go on while it waits. It syncs the current segment only: every append to an
     * earlier segment completed before the roll past it, which syncs that segment ({@code unsynced} is cleared
     * only by a sync of the committing batch) before it makes the next one current. So whichever segment the
     * read of {@code current} sees, the appends completed before the call are in it or in one synced already. An
     * append still in flight may or may not be covered. Leaves {@code unsynced} alone: the roll past this segment
     * syncs it again, which costs no flush when nothing was written since. That roll's sync runs in the commit's
     * turn and may wait behind this one when it is in flight on the same segment, so this sync does hold commits
     * up then.
     *
     * @throws dev.lockstep.StorageException if the sync failed; the segment's open is poisoned (see {@link Blob})
     */
    void syncCurrent() {
        current.blob().sync().await();
    }

    /**
     * {@link InjectedBug#ACK_BEFORE_SYNC}: starts a sync and does not wait for it. The log then counts as synced,
     * as the buggy store believes.
     */
    void startSyncWithoutWaiting() {
        current.blob().startSync().close();
        unsynced = false;
    }

    /**
     * Creates the next segment, durably, and makes it current. Writes appended to the current segment and not
     * yet synced are synced first, so that only the current segment can ever hold unsynced writes.
     *
     * <p>What the commit waits for: the new segment was opened ahead ({@link #nextOpening}), and the sync of the
     * current segment runs beside the new segment's header write and sync. The manifest entry is written only after
     * both syncs completed: once it is on disk, recovery reads the listed segment for a valid header and every
     * segment before it as sealed, so neither may then be short of what was written. So a roll waits for two
     * syncs in a row: the two segments', which overlap, then the manifest's. The open's own syncs (the new file
     * and its directory entry) are not among them: they ran when the open was started ahead, unless that open
     * failed or is not done yet, and then the roll waits for them too.
     */
    private void roll() {
        Operation<Void> sealing = unsynced ? current.blob().startSync() : null;
        long id = current == null ? 1 : current.id() + 1;
        OpenedBlob opened;
        try {
            opened = openSegment(id);
        } catch (RuntimeException failure) {
            awaitQuietly(sealing);
            throw failure;
        }
        Blob blob = opened.blob();
        try {
            if (opened.length() != 0) {
                blob.resize(0).await();
            }
            blob.writeAt(0, Records.segmentHeader(id)).await();
            blob.sync().await();
            if (sealing != null) {
                Operation<Void> awaited = sealing;
                sealing = null;
                awaited.await();
                unsynced = false;
            }
            // The segment is part of the log once the manifest lists it durably.
            manifest.writeAt(manifestLength, Records.manifestEntry(id)).await();
            if (options.bug() != InjectedBug.FORGET_DIRECTORY_SYNC) {
                manifest.sync().await();
            }
            manifestLength += Records.MANIFEST_ENTRY_BYTES;
        } catch (RuntimeException failure) {
            awaitQuietly(sealing);
            blob.close();
            throw failure;
        }
        Segment segment = new Segment(id, blob);
        lock.lock();
        try {
            segments.add(segment);
            rolled++;
        } finally {
            lock.unlock();
        }
        current = segment;
        tail = Records.SEGMENT_HEADER_BYTES;
        startOpeningNext();
    }

    /**
     * The segment {@code id}, from the open started ahead when it was for this id and succeeded, else opened now.
     */
    private OpenedBlob openSegment(long id) {
        Operation<OpenedBlob> opening;
        long openingId;
        lock.lock();
        try {
            opening = nextOpening;
            openingId = nextOpeningId;
            nextOpening = null;
        } finally {
            lock.unlock();
        }
        if (opening != null && openingId != id) {
            opening.close();
            opening = null;
        }
        if (opening != null) {
            try {
                return opening.await();
            } catch (StorageException openAheadFailed) {
                // The open ahead ran when its predecessor became current, perhaps long ago, while descriptors ran
                // out or a fault came and went: its failure says nothing about now, so the roll decides on an
                // open of its own. Any other failure (this fiber aborted or timed out) is the roll's.
                opening.close();
            }
        }
        return ctx.open(options.partition(), Records.segmentName(id)).await();
    }

    /** Starts the open of the segment after the current one, for the next roll to find done. */
    private void startOpeningNext() {
        long id = current.id() + 1;
        Operation<OpenedBlob> opening = ctx.open(options.partition(), Records.segmentName(id));
        lock.lock();
        try {
            nextOpening = opening;
            nextOpeningId = id;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a sync this roll started and no longer needs, its failure left to the caller's: the sync poisons
     * the open if it fails, and the next sync reports that. Returns once the sync completed, or at once when the
     * committing fiber is aborted or its timeout fires: the await then closes the operation and throws, and the
     * sync runs on, its result dropped (closing never cancels a sync; see {@link Blob}). So a sync of the segment
     * may be left in flight behind the roll's failure, and the batch that takes the commit over rolls again and
     * starts another. That loses nothing: no put of the batch was acknowledged (a put is acknowledged only after
     * syncs its own batch completed), and the segment's open flushes one at a time, so the new sync completes with
     * the flush of the one left behind or a later one, and fails if that one failed (the open is poisoned).
     * Waiting out the sync here instead is not possible (the closed operation cannot be awaited again) and would
     * hold a fiber its caller aborted or timed out.
     */
    private static void awaitQuietly(Operation<Void> sync) {
        if (sync == null) {
            return;
        }
        try {
            sync.await();
        } catch (RuntimeException ignored) {
            // Reported by the next sync of the same open (poisoned), or moot once the store is closed.
        }
    }

    /** Segments created since open. */
    long rolled() {
        lock.lock();
        try {
            return rolled;
        } finally {
            lock.unlock();
        }
    }

    /** Closes every blob of the log. */
    void closeBlobs() {
        List<Segment> toClose;
        Operation<OpenedBlob> opening;
        lock.lock();
        try {
            toClose = List.copyOf(segments);
            opening = nextOpening;
            nextOpening = null;
        } finally {
            lock.unlock();
        }
        if (opening != null) {
            opening.close(); // closes the blob too if the open completed unobserved (see Operation)
        }
        for (Segment segment : toClose) {
            segment.blob().close();
        }
        if (manifest != null) {
            manifest.close();
        }
    }
}
