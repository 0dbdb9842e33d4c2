package dev.lockstep.sim;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_DIRECT;
import static dev.lockstep.kernel.SystemCalls.O_DIRECTORY;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.os.SimFileSystem;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The simulator must not be kinder than Linux (ext4, data=ordered, a disk with a volatile write cache): every
 * outcome of a power cut that Linux allows for data that was never made durable must come out of some seed and
 * policy, and what was made durable must survive every seed. Each case runs many seeds under every policy and
 * collects the outcomes it saw.
 */
class LinuxCrashOutcomesTest {

    private static final int SEEDS = 300;
    private static final CrashPolicy[] TEARING = {CrashPolicy.PREFIX, CrashPolicy.SUBSET};

    /** A fresh file system with a durable, empty directory {@code /p}. */
    private static SimFileSystem fresh(long seed) {
        SimFileSystem fs = new SimFileSystem(new Generator(seed), new Auditor(), StorageFaults.NONE);
        fs.mkdir("/p");
        syncDirectory(fs, "/");
        return fs;
    }

    private static void syncDirectory(SimFileSystem fs, String path) {
        SimFileSystem.Handle directory = fs.open(path, O_DIRECTORY);
        assertEquals(0, fs.sync(directory, false));
        fs.close(directory);
    }

    private static void write(SimFileSystem fs, SimFileSystem.Handle handle, long offset, byte[] data,
            boolean durable) {
        assertEquals(data.length, fs.write(handle, offset, data, 0, data.length, durable));
    }

    private static byte[] filled(int length, char c) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) c);
        return bytes;
    }

    /** A durable file {@code /p/f} holding 8192 bytes of '0', entry and data synced. */
    private static SimFileSystem.Handle durableFile(SimFileSystem fs, String path) {
        SimFileSystem.Handle file = fs.open(path, O_RDWR | O_CREAT);
        write(fs, file, 0, filled(8192, '0'), false);
        assertEquals(0, fs.sync(file, false));
        syncDirectory(fs, "/p");
        return file;
    }

    /** The characters of each 512-byte sector of a range, as one string per sector, 'm' for a mixed sector. */
    private static String sectors(byte[] contents, int from, int to) {
        StringBuilder text = new StringBuilder();
        for (int sector = from; sector < to; sector += SimFileSystem.SECTOR_BYTES) {
            if (sector >= contents.length) {
                text.append('-');
                continue;
            }
            byte first = contents[sector];
            boolean uniform = true;
            for (int i = sector; i < Math.min(contents.length, sector + SimFileSystem.SECTOR_BYTES); i++) {
                uniform &= contents[i] == first;
            }
            text.append(uniform ? (char) first : 'm');
        }
        return text.toString();
    }

    /** Runs {@code scenario} for every seed under every policy given; collects what it returned. */
    private static Set<String> outcomes(CrashPolicy[] policies, BiFunction<SimFileSystem, CrashPolicy, String> scenario) {
        Set<String> seen = new TreeSet<>();
        for (CrashPolicy policy : policies) {
            for (long seed = 0; seed < SEEDS; seed++) {
                seen.add(scenario.apply(fresh(seed * 7919 + policy.ordinal()), policy));
            }
        }
        return seen;
    }

    // ------------------------------------------------------------------ 1: a new file's directory entry

    @Test
    void newFileSyncedButItsEntryNotCanVanish() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = fs.open("/p/new", O_RDWR | O_CREAT);
            write(fs, file, 0, filled(4096, 'N'), false);
            assertEquals(0, fs.sync(file, false));
            fs.crash(policy);
            return fs.exists("/p/new") ? "kept" : "vanished";
        });
        assertTrue(seen.contains("vanished"), "ext4 may lose a synced file whose directory was never synced: " + seen);
    }

    @Test
    void newFileWithEntrySyncedAlwaysSurvives() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = fs.open("/p/new", O_RDWR | O_CREAT);
            write(fs, file, 0, filled(4096, 'N'), false);
            assertEquals(0, fs.sync(file, false));
            syncDirectory(fs, "/p");
            fs.crash(policy);
            return fs.exists("/p/new") ? sectors(fs.contents("/p/new"), 0, 4096) : "vanished";
        });
        assertEquals(Set.of("NNNNNNNN"), seen);
    }

    /**
     * The other side of question 1: on ext4 a created entry reaches the journal's next commit (every 5 s, or any
     * fsync on the file system: ext4's fsync of the new file itself commits it) without an fsync of the
     * directory, so after a crash it may be there. Recovery code that never expects an entry nobody made durable
     * (an empty blob left by an open cut short) is never shown one.
     */
    @Test
    void newEntryNeverDirectorySyncedMayAlsoSurvive() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = fs.open("/p/new", O_RDWR | O_CREAT);
            write(fs, file, 0, filled(4096, 'N'), false);
            assertEquals(0, fs.sync(file, false));
            fs.crash(policy);
            return fs.exists("/p/new") ? "kept" : "vanished";
        });
        assertTrue(seen.contains("kept"), "ext4 may keep the entry (journal commit) but no seed did: " + seen);
    }

    // ------------------------------------------------------------------ preallocation (fallocate)

    /**
     * The size an allocation gives a file is metadata: until the file is synced, a crash may keep it (ext4's
     * journal committed it) or lose it, never anything else; the bytes before it are untouched either way.
     */
    @Test
    void allocationNotSyncedMayBeKeptOrLost() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.allocate(file, 4096, 3 * 4096);
            fs.crash(policy);
            return allocationOutcome(fs.contents("/p/f"));
        });
        assertEquals(Set.of("8192:0000000000000000", "16384:0000000000000000 then zeros"), seen);
    }

    /** The length, the first 8192 bytes' sectors, and whether what follows them is zeros. */
    private static String allocationOutcome(byte[] contents) {
        String head = contents.length + ":" + sectors(contents, 0, 8192);
        if (contents.length <= 8192) {
            return head;
        }
        boolean zeros = Arrays.equals(new byte[contents.length - 8192], Arrays.copyOfRange(contents, 8192,
                contents.length));
        return head + (zeros ? " then zeros" : " then other bytes");
    }

    /** Once the file is synced, the allocated size survives every crash, the new range reading as zeros. */
    @Test
    void allocationSyncedAlwaysSurvives() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.allocate(file, 4096, 3 * 4096);
            assertEquals(0, fs.sync(file, false));
            fs.crash(policy);
            return allocationOutcome(fs.contents("/p/f"));
        });
        assertEquals(Set.of("16384:0000000000000000 then zeros"), seen);
    }

    // ------------------------------------------------------------------ 2: remove without a directory sync

    @Test
    void removedFileWithoutDirectorySyncCanComeBack() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.close(file);
            fs.unlink("/p/f");
            fs.crash(policy);
            return fs.exists("/p/f") ? "back:" + sectors(fs.contents("/p/f"), 0, 8192) : "gone";
        });
        assertTrue(seen.contains("back:0000000000000000"), "ext4 may undo an unsynced unlink: " + seen);
    }

    @Test
    void removedFileWithDirectorySyncNeverComesBack() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.close(file);
            fs.unlink("/p/f");
            syncDirectory(fs, "/p");
            fs.crash(policy);
            return fs.exists("/p/f") ? "back" : "gone";
        });
        assertEquals(Set.of("gone"), seen);
    }

    /** The other side of question 2: ext4 commits an unlink with its next transaction, directory synced or not. */
    @Test
    void removedFileWithoutDirectorySyncMayAlsoStayGone() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.close(file);
            fs.unlink("/p/f");
            fs.crash(policy);
            return fs.exists("/p/f") ? "back" : "gone";
        });
        assertTrue(seen.contains("gone"), "ext4 may keep an unsynced unlink but no seed did: " + seen);
    }

    // ------------------------------------------------------------------ 3: resize without a sync

    @Test
    void truncateWithoutSyncMayLeaveEitherLength() {
        Set<String> shrink = outcomes(TEARING, (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.truncate(file, 4096);
            fs.crash(policy);
            return String.valueOf(fs.contents("/p/f").length);
        });
        assertEquals(Set.of("4096", "8192"), shrink);
        Set<String> grow = outcomes(TEARING, (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.truncate(file, 12288);
            fs.crash(policy);
            return String.valueOf(fs.contents("/p/f").length);
        });
        assertEquals(Set.of("8192", "12288"), grow);
        Set<String> synced = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            fs.truncate(file, 4096);
            assertEquals(0, fs.sync(file, true));
            fs.crash(policy);
            return String.valueOf(fs.contents("/p/f").length);
        });
        assertEquals(Set.of("4096"), synced);
    }

    // ------------------------------------------------------------------ 4: unsynced writes: lost, torn, reordered

    @Test
    void unsyncedWritesMayBeLostTornOrReordered() {
        Set<String> seen = outcomes(TEARING, (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            write(fs, file, 0, filled(2048, 'A'), false);       // earlier, sectors 0-3
            write(fs, file, 4096, filled(2048, 'B'), false);    // later, sectors 8-11
            fs.crash(policy);
            byte[] contents = fs.contents("/p/f");
            return sectors(contents, 0, 2048) + "|" + sectors(contents, 4096, 6144);
        });
        assertTrue(seen.contains("0000|0000"), "both lost: " + seen);
        assertTrue(seen.contains("AAAA|BBBB"), "both kept: " + seen);
        assertTrue(seen.stream().anyMatch(s -> s.matches("A+0+\\|0000")), "earlier torn at a sector: " + seen);
        assertTrue(seen.stream().anyMatch(s -> s.matches("[A0]*0[A0]*A[A0]*\\|.*")), "a hole in the earlier: " + seen);
        assertTrue(seen.contains("0000|BBBB"), "later kept, earlier lost (reordering): " + seen);
        assertTrue(seen.stream().noneMatch(s -> s.contains("m")), "a sector is kept or lost whole: " + seen);
        // An unaligned write tears at absolute 512-byte boundaries.
        Set<String> unaligned = outcomes(TEARING, (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            write(fs, file, 256, filled(1024, 'U'), false);    // half of sector 0, sector 1, half of sector 2
            fs.crash(policy);
            byte[] contents = fs.contents("/p/f");
            return "" + (char) contents[256] + (char) contents[512] + (char) contents[1024];
        });
        assertTrue(unaligned.containsAll(Set.of("U00", "UU0", "000", "UUU")), "unaligned tears: " + unaligned);
    }

    @Test
    void syncedWritesAlwaysSurvive() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            write(fs, file, 0, filled(2048, 'A'), false);
            write(fs, file, 4096, filled(2048, 'B'), false);
            assertEquals(0, fs.sync(file, true));
            fs.crash(policy);
            byte[] contents = fs.contents("/p/f");
            return sectors(contents, 0, 2048) + "|" + sectors(contents, 4096, 6144);
        });
        assertEquals(Set.of("AAAA|BBBB"), seen);
    }

    // ------------------------------------------------------------------ 5: RWF_DSYNC and O_DIRECT

    @Test
    void dsyncWriteSurvivesButDirectWriteWithoutSyncMayBeLost() {
        Set<String> dsync = outcomes(CrashPolicy.values(), (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            write(fs, file, 0, filled(1024, 'E'), false);      // unsynced before it: not covered
            write(fs, file, 4096, filled(4096, 'D'), true);
            fs.crash(policy);
            return sectors(fs.contents("/p/f"), 4096, 8192);
        });
        assertEquals(Set.of("DDDDDDDD"), dsync);
        Set<String> dsyncBarrier = outcomes(TEARING, (fs, policy) -> {
            SimFileSystem.Handle file = durableFile(fs, "/p/f");
            write(fs, file, 0, filled(1024, 'E'), false);
            write(fs, file, 4096, filled(4096, 'D'), true);
            fs.crash(policy);
            return sectors(fs.contents("/p/f"), 0, 1024);
        });
        assertTrue(dsyncBarrier.contains("00"), "a DSYNC write is no barrier for earlier writes: " + dsyncBarrier);
        Set<String> direct = outcomes(TEARING, (fs, policy) -> {
            durableFile(fs, "/p/f");
            SimFileSystem.Handle file = fs.open("/p/f", O_RDWR | O_DIRECT);
            write(fs, file, 0, filled(4096, 'O'), false);
            fs.crash(policy);
            return sectors(fs.contents("/p/f"), 0, 4096);
        });
        assertTrue(direct.contains("00000000"), "O_DIRECT, no sync: lost: " + direct);
        assertTrue(direct.stream().anyMatch(s -> s.contains("O") && s.contains("0")), "O_DIRECT torn: " + direct);
        Set<String> directSynced = outcomes(CrashPolicy.values(), (fs, policy) -> {
            durableFile(fs, "/p/f");
            SimFileSystem.Handle file = fs.open("/p/f", O_RDWR | O_DIRECT);
            write(fs, file, 0, filled(4096, 'O'), false);
            assertEquals(0, fs.sync(file, true));
            fs.crash(policy);
            return sectors(fs.contents("/p/f"), 0, 4096);
        });
        assertEquals(Set.of("OOOOOOOO"), directSynced);
    }

    // ------------------------------------------------------------------ 6: two files

    @Test
    void syncOfOneFileDoesNotSaveAnother() {
        Set<String> seen = outcomes(TEARING, (fs, policy) -> {
            SimFileSystem.Handle a = durableFile(fs, "/p/a");
            SimFileSystem.Handle b = durableFile(fs, "/p/b");
            write(fs, b, 0, filled(4096, 'B'), false);          // unsynced, first
            write(fs, a, 0, filled(4096, 'A'), false);
            assertEquals(0, fs.sync(a, false));                 // synced, after
            fs.crash(policy);
            return sectors(fs.contents("/p/a"), 0, 4096) + "|" + sectors(fs.contents("/p/b"), 0, 4096);
        });
        assertTrue(seen.contains("AAAAAAAA|00000000"), "B lost while A survives: " + seen);
        assertTrue(seen.contains("AAAAAAAA|BBBBBBBB"), "B may also survive: " + seen);
        assertTrue(seen.stream().allMatch(s -> s.startsWith("AAAAAAAA|")), "A always survives: " + seen);
    }

    // ------------------------------------------------------------------ 7: rename

    /** What the names {@code /p/m} and {@code /p/tmp} hold: each name's sectors over 8192 bytes, or '-'. */
    private static String names(SimFileSystem fs) {
        return "m:" + (fs.exists("/p/m") ? sectors(fs.contents("/p/m"), 0, 8192) : "-")
                + " tmp:" + (fs.exists("/p/tmp") ? sectors(fs.contents("/p/tmp"), 0, 8192) : "-");
    }

    /** A file {@code /p/tmp} of 8192 bytes of 'N', synced, its entry durable if {@code entryDurable}. */
    private static void syncedTemporary(SimFileSystem fs, boolean entryDurable) {
        SimFileSystem.Handle tmp = fs.open("/p/tmp", O_RDWR | O_CREAT);
        write(fs, tmp, 0, filled(8192, 'N'), false);
        assertEquals(0, fs.sync(tmp, false));
        fs.close(tmp);
        if (entryDurable) {
            syncDirectory(fs, "/p");
        }
    }

    /**
     * ext4 journals a rename as one change: until the directory is synced a crash leaves the old names or the new
     * ones. Never a mix: the file under both names (a link count of 2 nobody made), under neither (lost), or the
     * target name gone with the file still under its old name.
     */
    @Test
    void renameOverAFileWithoutDirectorySyncLeavesTheOldNamesOrTheNewOnes() {
        String old = "m:0000000000000000 tmp:NNNNNNNNNNNNNNNN";
        String renamed = "m:NNNNNNNNNNNNNNNN tmp:-";
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            fs.close(durableFile(fs, "/p/m"));
            syncedTemporary(fs, true);
            fs.rename("/p/tmp", "/p/m");
            fs.crash(policy);
            return names(fs);
        });
        assertEquals(Set.of(old, renamed), seen, "the old names or the new ones, whole");
        // A temporary whose own entry was never durable: before the rename it was not there either.
        Set<String> fresh = outcomes(CrashPolicy.values(), (fs, policy) -> {
            fs.close(durableFile(fs, "/p/m"));
            syncedTemporary(fs, false);
            fs.rename("/p/tmp", "/p/m");
            fs.crash(policy);
            return names(fs);
        });
        assertEquals(Set.of("m:0000000000000000 tmp:-", renamed), fresh, "the old names or the new ones, whole");
        Set<String> allLost = outcomes(new CrashPolicy[] {CrashPolicy.ALL_LOST}, (fs, policy) -> {
            fs.close(durableFile(fs, "/p/m"));
            syncedTemporary(fs, true);
            fs.rename("/p/tmp", "/p/m");
            fs.crash(policy);
            return names(fs);
        });
        assertEquals(Set.of(old), allLost, "ALL_LOST undoes every unsynced directory change");
    }

    @Test
    void renameToAFreeNameWithoutDirectorySyncLeavesOneOfTheNames() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            fs.close(durableFile(fs, "/p/tmp"));
            fs.rename("/p/tmp", "/p/m");
            fs.crash(policy);
            return names(fs);
        });
        assertEquals(Set.of("m:- tmp:0000000000000000", "m:0000000000000000 tmp:-"), seen);
    }

    @Test
    void renameWithDirectorySyncAlwaysSurvives() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            fs.close(durableFile(fs, "/p/m"));
            syncedTemporary(fs, false);
            fs.rename("/p/tmp", "/p/m");
            syncDirectory(fs, "/p");
            fs.crash(policy);
            return names(fs);
        });
        assertEquals(Set.of("m:NNNNNNNNNNNNNNNN tmp:-"), seen);
    }

    /**
     * A rename moves a name, not data: a file written and renamed without a sync of its own may come back empty,
     * torn or whole under the new name, the directory synced or not (ext4's replace-on-rename heuristic,
     * auto_da_alloc, only starts the write-back; other file systems do not even do that).
     */
    @Test
    void renamedFileWithoutItsOwnSyncMayBeEmptyOrTornUnderItsNewName() {
        Set<String> seen = outcomes(TEARING, (fs, policy) -> {
            fs.close(durableFile(fs, "/p/m"));
            SimFileSystem.Handle tmp = fs.open("/p/tmp", O_RDWR | O_CREAT);
            write(fs, tmp, 0, filled(8192, 'N'), false);
            fs.close(tmp);
            fs.rename("/p/tmp", "/p/m");
            syncDirectory(fs, "/p");
            fs.crash(policy);
            return names(fs);
        });
        assertTrue(seen.contains("m:---------------- tmp:-"), "the data lost, the name kept: " + seen);
        assertTrue(seen.contains("m:NNNNNNNNNNNNNNNN tmp:-"), "the data may also survive: " + seen);
        assertTrue(seen.stream().anyMatch(s -> s.matches("m:N+-+ tmp:-")), "torn at a sector: " + seen);
        assertTrue(seen.stream().allMatch(s -> s.endsWith("tmp:-")), "the rename itself was synced: " + seen);
    }

    /**
     * Renames over the same names since the last directory sync persist as one change. ext4, which keeps a prefix
     * of its journal, could also keep the state between them; the simulator shows the ends only.
     */
    @Test
    void chainedRenamesLeaveTheFirstStateOrTheLast() {
        Set<String> seen = outcomes(CrashPolicy.values(), (fs, policy) -> {
            fs.close(durableFile(fs, "/p/a"));
            fs.rename("/p/a", "/p/b");
            fs.rename("/p/b", "/p/c");
            fs.crash(policy);
            return (fs.exists("/p/a") ? "a" : "") + (fs.exists("/p/b") ? "b" : "") + (fs.exists("/p/c") ? "c" : "");
        });
        assertEquals(Set.of("a", "c"), seen);
    }

    /** A replaced file stays readable through a handle opened before the rename, as an unlinked one does. */
    @Test
    void replacedFileStaysReadableThroughAnOpenHandle() {
        SimFileSystem fs = fresh(1);
        SimFileSystem.Handle old = durableFile(fs, "/p/m");
        syncedTemporary(fs, false);
        long used = fs.usedBytes();
        fs.rename("/p/tmp", "/p/m");
        java.lang.foreign.MemorySegment read = java.lang.foreign.Arena.ofAuto().allocate(8192);
        assertEquals(8192, fs.read(old, 0, read, 8192));
        assertEquals('0', read.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 8191));
        assertEquals(used, fs.usedBytes(), "the replaced file is still open: its space is still used");
        fs.close(old);
        assertEquals(used - 8192, fs.usedBytes(), "its last handle closed: its space is freed");
    }
}
