/**
 * A small durable key-value store written as a user of Lockstep would write one, on {@code dev.lockstep} and
 * the JDK only, so that the same code runs on runtime-uring and in the simulator.
 *
 * <h2>On disk</h2>
 * One partition holds a {@code MANIFEST} blob and the segments of an append-only log.
 * <ul>
 *   <li>A <b>segment</b> ({@code seg-<16 hex digits>}) starts with a {@value Records#SEGMENT_HEADER_BYTES}-byte
 *       checksummed header and continues with records, each {@code [crc32c u32][bodyLength u32][body]}, the
 *       body being {@code [type u8][sequence u64][keyLength u16][key][value]}; the CRC32C covers the length and
 *       the body.</li>
 *   <li>The <b>manifest</b> is the store's own directory: the ordered list of the segments that make up the log,
 *       one checksummed 12-byte entry per segment. Lockstep's {@code open} already creates blobs durably (it
 *       fsyncs the partition's directory), so the durability step the store itself owns when it adds a segment
 *       is the sync of this list. The next segment is opened ahead, when its predecessor becomes current, so a
 *       roll does not wait for the create; the roll that lists it empties it first. Recovery keeps that one
 *       unlisted segment, the one after the last listed, and removes any other, the leftover of a roll that a
 *       crash interrupted.</li>
 * </ul>
 *
 * <h2>Durability</h2>
 * Puts and deletes are group-committed ({@code CommitLine}): a write joins the open batch; batches commit one at
 * a time, each as one write of all its records and one sync; a write is acknowledged, and becomes visible to
 * gets, only after its batch's sync completed. With {@code SYNC_EVERY_SECOND} a write is acknowledged once its
 * batch is written, and a syncer starts a sync of the current segment every second beside the commits: writes
 * go on being appended and acknowledged while it runs, for up to a second; once it has run longer, commits wait
 * for it to end, so a crash loses at most two seconds of acknowledged writes. A segment is synced before the log
 * rolls past it, so the current one is all that can hold unsynced writes; that roll's sync holds the commit's
 * turn, and when the syncer's sync of the same segment is in flight it may wait behind it.
 * Recovery (on every open) reads the manifest, removes unlisted
 * segments, replays every listed segment into the in-memory index and truncates a torn tail of the last one,
 * durably, before the store accepts a write. A failed write or sync poisons the store
 * ({@link dev.lockstep.demo.kv.StoreUnavailableException}); {@link dev.lockstep.demo.kv.KvServer} then drains
 * and reopens it, which recovers from what the disk holds.
 *
 * <h2>Threads</h2>
 * The store is used by fibers of every worker: its state is guarded by one lock that is never held across an
 * {@code await}.
 *
 * <p>{@link dev.lockstep.demo.kv.InjectedBug} names three deliberate bugs the demo can switch on to show that
 * the simulator finds them.
 */
package dev.lockstep.demo.kv;
