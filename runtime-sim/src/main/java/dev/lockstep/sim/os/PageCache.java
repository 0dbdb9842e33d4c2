package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.sim.CrashReport;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.SyncFailureModel;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.FsNodes.DirectoryNode;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Mutation;
import dev.lockstep.sim.os.FsNodes.Node;
import dev.lockstep.sim.os.FsNodes.Resize;
import dev.lockstep.sim.os.FsNodes.Write;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The page cache and the durable image of {@link SimFileSystem}'s files: what a write puts in the page cache and
 * its journal, what a sync makes durable, what a failed
 * sync leaves behind under each {@link SyncFailureModel}, and the 512-byte sectors in which a disk keeps or loses
 * a write (shared with {@link CrashRecovery}). Draws come from the one {@link Generator}, at the sites named
 * here. Not thread-safe.
 */
final class PageCache {

    private PageCache() {
    }

    /**
     * A {@code pwrite} into the page cache once the handle checks passed: its fault rolls, the cut at capacity
     * and the journal entry, as {@link SimFileSystem#write} documents them. The caller accounts for the growth of
     * the live size.
     *
     * @param availableBytes the capacity left before this write
     * @param owned whether {@code source} is an array nobody else holds or changes, which the page cache and the
     *              journal may keep instead of a copy
     * @return the bytes written, or {@code -ENOSPC} or {@code -EIO}
     */
    static int write(FileNode file, long offset, byte[] source, int sourceOffset, int length, boolean durable,
            StorageFaults faults, long availableBytes, Generator generator, boolean owned) {
        if (generator.chance(Site.FAULT_WRITE, faults.writeRate())) {
            if (length >= 2 && generator.chance(Site.PARTIAL_WRITE, faults.partialWriteRate())) {
                int prefix = 1 + generator.nextInt(Site.PARTIAL_WRITE, length - 1);
                int fitting = fitting(file, offset, prefix, availableBytes);
                if (fitting > 0) {
                    apply(file, offset, source, sourceOffset, fitting, false, owned);
                }
            }
            return -Errno.EIO;
        }
        if (length == 0) {
            return 0;
        }
        int fitting = fitting(file, offset, length, availableBytes);
        if (fitting <= 0) {
            return -Errno.ENOSPC;
        }
        if (faults.corruptWriteRate() > 0 && generator.chance(Site.CORRUPT_WRITE, faults.corruptWriteRate())) {
            byte[] corrupted = java.util.Arrays.copyOfRange(source, sourceOffset, sourceOffset + fitting);
            long bit = generator.nextLong(Site.CORRUPT_WRITE, 8L * fitting);
            corrupted[(int) (bit >>> 3)] ^= (byte) (1 << (bit & 7));
            source = corrupted;
            sourceOffset = 0;
            owned = true;
        }
        if (faults.misdirectedWriteRate() > 0
                && generator.chance(Site.MISDIRECTED_WRITE, faults.misdirectedWriteRate())) {
            // The device puts the data at another sector of the file and reports the write done.
            long sectors = Math.max(file.live.size(), offset + fitting) / SimFileSystem.SECTOR_BYTES + 1;
            long landing = generator.nextLong(Site.MISDIRECTED_WRITE, sectors) * SimFileSystem.SECTOR_BYTES;
            if (landing == offset) {
                landing += SimFileSystem.SECTOR_BYTES;
            }
            landing = Math.min(landing, ByteImage.MAX_SIZE - fitting);
            int landed = fitting(file, landing, fitting, availableBytes);
            if (landed > 0) {
                apply(file, landing, source, sourceOffset, landed, durable, owned);
            }
            return fitting;
        }
        apply(file, offset, source, sourceOffset, fitting, durable, owned);
        if (durable && generator.chance(Site.FAULT_SYNC, faults.syncRate())) {
            // The bytes are in the page cache; their writeback failed.
            Write written = (Write) file.unsynced.removeLast();
            if (faults.syncFailure() == SyncFailureModel.LINUX) {
                writeBack(file.durable, new Write(written.offset(), written.data(), false), generator);
            } else {
                file.unsynced.add(new Write(written.offset(), written.data(), false));
            }
            return -Errno.EIO;
        }
        return fitting;
    }

    /** How many of {@code length} bytes at {@code offset} fit in the remaining capacity. */
    private static int fitting(FileNode file, long offset, int length, long available) {
        long growth = offset + length - file.live.size();
        if (growth <= 0 || growth <= available) {
            return length;
        }
        long largestEnd = file.live.size() + Math.max(0, available);
        return (int) Math.max(0, Math.min(length, largestEnd - offset));
    }

    /**
     * The write's bytes become the journal entry's data, which nothing changes from then on, and the page cache
     * shares them ({@link ByteImage#writeShared}): one array, not a copy for each, and none when the caller's
     * whole array is {@code owned}.
     */
    private static void apply(FileNode file, long offset, byte[] source, int sourceOffset, int length,
            boolean durable, boolean owned) {
        byte[] data = OwnedBytes.of(source, sourceOffset, length, owned);
        file.live.writeShared(offset, data);
        file.unsynced.add(new Write(offset, data, durable));
        int entries = file.unsynced.size();
        if (entries >= COMPACT_FROM_ENTRIES && (entries & (entries - 1)) == 0) {
            // Looked at when the journal's length reaches a power of two: amortized O(1) per write.
            boundJournal(file);
        }
    }

    /** How many journal entries a file has before {@link #boundJournal} first looks at it. */
    static final int COMPACT_FROM_ENTRIES = 64;
    /** The bytes a journal may hold before it is compacted, per byte of the file (and at least the floor). */
    static final int JOURNAL_BYTES_PER_FILE_BYTE = 2;
    /** The smallest file size the journal's bound is worked out from. */
    static final long JOURNAL_FLOOR_BYTES = 64 * 1024;

    /**
     * Bounds the memory of a file's unsynced journal by the file's size, not by how many writes it took: once the
     * journal holds more than {@link #JOURNAL_BYTES_PER_FILE_BYTE} bytes per byte of the file (of at least
     * {@link #JOURNAL_FLOOR_BYTES}), every byte of an unsynced write that a later write overwrote is dropped (of a
     * write made durable with {@code RWF_DSYNC}, only a byte a later durable write overwrote), as the page cache
     * keeps only a page's latest bytes. What a sync makes durable is unchanged (the later write sets those bytes
     * whatever came between); a crash then chooses among the writes that are left, so a seed whose file was
     * compacted no longer finds the dropped versions on its disk. Afterwards the non-durable writes, and the durable
     * ones, each cover a byte at most once: the journal holds at most twice the largest size the file reached.
     * A file written the way most are — appends, or fewer overwrites than its size between syncs — is never
     * compacted, and no draw depends on it.
     */
    static void boundJournal(FileNode file) {
        long bytes = 0;
        for (Mutation mutation : file.unsynced) {
            if (mutation instanceof Write write) {
                bytes += write.data().length;
            }
        }
        if (bytes <= JOURNAL_BYTES_PER_FILE_BYTE * Math.max(file.live.size(), JOURNAL_FLOOR_BYTES)) {
            return;
        }
        Ranges overwritten = new Ranges();
        Ranges overwrittenDurably = new Ranges();
        List<Mutation> kept = new ArrayList<>(file.unsynced.size());
        for (int i = file.unsynced.size() - 1; i >= 0; i--) {
            Mutation mutation = file.unsynced.get(i);
            if (!(mutation instanceof Write write)) {
                kept.add(mutation);
                continue;
            }
            long start = write.offset();
            long end = start + write.data().length;
            List<long[]> left = (write.durable() ? overwrittenDurably : overwritten).uncovered(start, end);
            for (int piece = left.size() - 1; piece >= 0; piece--) {
                long[] range = left.get(piece);
                kept.add(range[0] == start && range[1] == end ? write : new Write(range[0],
                        java.util.Arrays.copyOfRange(write.data(), (int) (range[0] - start), (int) (range[1] - start)),
                        write.durable()));
            }
            overwritten.add(start, end);
            if (write.durable()) {
                overwrittenDurably.add(start, end);
            }
        }
        java.util.Collections.reverse(kept);
        file.unsynced.clear();
        file.unsynced.addAll(kept);
    }

    /** A set of disjoint byte ranges {@code [start, end)}, merged as they are added. */
    private static final class Ranges {
        private final TreeMap<Long, Long> byStart = new TreeMap<>();

        void add(long start, long end) {
            java.util.Map.Entry<Long, Long> before = byStart.floorEntry(start);
            if (before != null && before.getValue() >= start) {
                start = before.getKey();
                end = Math.max(end, before.getValue());
            }
            for (java.util.Map.Entry<Long, Long> next = byStart.ceilingEntry(start); next != null
                    && next.getKey() <= end; next = byStart.ceilingEntry(start)) {
                end = Math.max(end, next.getValue());
                byStart.remove(next.getKey());
            }
            byStart.put(start, end);
        }

        /** The parts of {@code [start, end)} outside every range, in order. */
        List<long[]> uncovered(long start, long end) {
            List<long[]> left = new ArrayList<>();
            long at = start;
            java.util.Map.Entry<Long, Long> range = byStart.floorEntry(start);
            if (range == null || range.getValue() <= start) {
                range = byStart.higherEntry(start);
            }
            while (at < end && range != null && range.getKey() < end) {
                if (range.getKey() > at) {
                    left.add(new long[] {at, range.getKey()});
                }
                at = Math.max(at, range.getValue());
                range = byStart.higherEntry(range.getKey());
            }
            if (at < end) {
                left.add(new long[] {at, end});
            }
            return left;
        }
    }

    static void syncTree(DirectoryNode directory) {
        directory.makeEntriesDurable();
        for (Node child : directory.entries.values()) {
            switch (child) {
                case DirectoryNode nested -> syncTree(nested);
                case FileNode file -> applyJournal(file);
            }
        }
    }

    /** A failed {@code syncfs} under {@link SyncFailureModel#LINUX}: every file's journal is dropped. */
    static void dropTree(DirectoryNode directory, Generator generator) {
        for (Node child : directory.entries.values()) {
            switch (child) {
                case DirectoryNode nested -> dropTree(nested, generator);
                case FileNode file -> dropJournal(file, generator);
            }
        }
    }

    /** A successful sync: everything still to sync reaches the disk, in order. */
    static void applyJournal(FileNode file) {
        for (Mutation mutation : file.unsynced) {
            switch (mutation) {
                case Write write -> file.durable.writeShared(write.offset(), write.data());
                case Resize resize -> file.durable.resize(resize.size());
            }
        }
        file.unsynced.clear();
    }

    /**
     * A failed sync under {@link SyncFailureModel#LINUX}: the pages are marked clean, so nothing of the journal
     * is still to sync; each mutation reached the disk or not, by seed. Writes that were durable already
     * ({@code RWF_DSYNC}) are on the disk whole.
     */
    static void dropJournal(FileNode file, Generator generator) {
        for (Mutation mutation : file.unsynced) {
            switch (mutation) {
                case Write write when write.durable() -> file.durable.writeShared(write.offset(), write.data());
                case Write write -> writeBack(file.durable, write, generator);
                case Resize resize -> {
                    if (generator.nextInt(Site.SYNC_WRITEBACK, 2) == 1) {
                        file.durable.resize(resize.size());
                    }
                }
            }
        }
        file.unsynced.clear();
    }

    /** A write whose writeback failed: lost, whole, or a seeded subset of its sectors, on the durable image. */
    static void writeBack(ByteImage durable, Write write, Generator generator) {
        applyWrite(durable, write, subset(write, generator, Site.SYNC_WRITEBACK, Site.SYNC_WRITEBACK));
    }

    /** The write cut at absolute 512-byte boundaries: the units in which a disk keeps or loses it. */
    static List<CrashReport.Range> sectors(Write write) {
        List<CrashReport.Range> pieces = new ArrayList<>();
        long offset = write.offset();
        long end = write.offset() + write.data().length;
        while (offset < end) {
            long sectorEnd = Math.min(end, (offset / SimFileSystem.SECTOR_BYTES + 1) * SimFileSystem.SECTOR_BYTES);
            pieces.add(new CrashReport.Range(offset, sectorEnd - offset));
            offset = sectorEnd;
        }
        return pieces;
    }

    /** Lost, whole or torn with equal odds; a torn write keeps each sector with probability one half. */
    static List<CrashReport.Range> subset(Write write, Generator generator, Site fateSite, Site tearSite) {
        List<CrashReport.Range> pieces = sectors(write);
        int fate = generator.nextInt(fateSite, 3);
        if (fate == 0) {
            return List.of();
        }
        if (fate == 1) {
            return merged(pieces);
        }
        List<CrashReport.Range> kept = new ArrayList<>();
        for (CrashReport.Range piece : pieces) {
            if (generator.chance(tearSite, 0.5)) {
                kept.add(piece);
            }
        }
        return merged(kept);
    }

    /** Joins adjacent ranges, so a whole write reports one range. */
    static List<CrashReport.Range> merged(List<CrashReport.Range> pieces) {
        List<CrashReport.Range> joined = new ArrayList<>();
        for (CrashReport.Range piece : pieces) {
            if (!joined.isEmpty() && joined.getLast().end() == piece.offset()) {
                CrashReport.Range last = joined.removeLast();
                joined.add(new CrashReport.Range(last.offset(), last.length() + piece.length()));
            } else {
                joined.add(piece);
            }
        }
        return joined;
    }

    /** Writes the surviving ranges of {@code write} to {@code image}; reports what survived. */
    static CrashReport.MutationOutcome applyWrite(ByteImage image, Write write,
            List<CrashReport.Range> survived) {
        List<CrashReport.Range> ranges = merged(survived);
        for (CrashReport.Range range : ranges) {
            int from = (int) (range.offset() - write.offset());
            if (from == 0 && range.length() == write.data().length) {
                image.writeShared(range.offset(), write.data());
            } else {
                image.write(range.offset(), write.data(), from, (int) range.length());
            }
        }
        return new CrashReport.MutationOutcome(CrashReport.Kind.WRITE, write.offset(), write.data().length,
                write.durable(), ranges);
    }
}
