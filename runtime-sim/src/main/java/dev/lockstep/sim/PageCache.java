package dev.lockstep.sim;

import dev.lockstep.kernel.Errno;
import dev.lockstep.sim.FsNodes.DirectoryNode;
import dev.lockstep.sim.FsNodes.FileNode;
import dev.lockstep.sim.FsNodes.Mutation;
import dev.lockstep.sim.FsNodes.Node;
import dev.lockstep.sim.FsNodes.Resize;
import dev.lockstep.sim.FsNodes.Write;
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
        byte[] data;
        if (owned && sourceOffset == 0 && length == source.length) {
            data = source;
        } else {
            data = new byte[length];
            System.arraycopy(source, sourceOffset, data, 0, length);
        }
        file.live.writeShared(offset, data);
        file.unsynced.add(new Write(offset, data, durable));
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
