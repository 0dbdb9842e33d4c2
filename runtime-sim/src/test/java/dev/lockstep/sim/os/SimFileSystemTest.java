package dev.lockstep.sim.os;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_DIRECTORY;
import static dev.lockstep.kernel.SystemCalls.O_EXCL;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.Submissions;
import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.sim.CrashPolicy;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimFileSystemTest {

    private final Harness harness = new Harness(17);
    private final SimKernel kernel = harness.kernel();
    private final SystemCalls system = kernel.system();
    private final SimRing ring = kernel.openRing(8);
    private final SimFileSystem fs = kernel.fileSystem();
    private long nextUserData = 1;

    private int write(int fd, long offset, String text) {
        return write(fd, offset, text, 0);
    }

    private int write(int fd, long offset, String text, int rwFlags) {
        MemorySegment buffer = Harness.text(ring, text);
        Submission submission = Submissions.io(Opcode.WRITE, fd, buffer, (int) buffer.byteSize(), offset, nextUserData++);
        submission.rwFlags = rwFlags;
        int result = harness.run(ring, submission);
        ring.free(buffer);
        return result;
    }

    private String read(int fd, long offset, int length) {
        MemorySegment buffer = ring.allocate(length);
        int result = harness.run(ring, Submissions.io(Opcode.READ, fd, buffer, length, offset, nextUserData++));
        assertTrue(result >= 0, "read failed: " + result);
        String text = Harness.text(buffer, result);
        ring.free(buffer);
        return text;
    }

    private int fsync(int fd) {
        return harness.run(ring, Submissions.fsync(fd, nextUserData++));
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void writesAreReadBackAndGapsReadAsZeros() {
        int fd = system.open("/data", O_RDWR | O_CREAT);
        assertEquals(5, write(fd, 0, "hello"));
        assertEquals(5, write(fd, 8, "world"));
        assertEquals(13, system.size(fd));
        assertEquals("hello\0\0\0world", read(fd, 0, 64));
        assertEquals("", read(fd, 13, 4));
        system.truncate(fd, 3);
        assertEquals("hel", read(fd, 0, 64));
        system.truncate(fd, 5);
        assertEquals("hel\0\0", read(fd, 0, 64));
    }

    @Test
    void directoryEntryIsNotDurableUntilTheDirectoryIsSynced() {
        system.mkdir("/db");
        int root = system.open("/", O_DIRECTORY);
        system.fsync(root);
        int fd = system.open("/db/blob", O_RDWR | O_CREAT);
        assertEquals(4, write(fd, 0, "data"));
        assertEquals(0, fsync(fd));
        fs.crash(CrashPolicy.SUBSET);
        assertTrue(fs.isDirectory("/db"));
        assertFalse(fs.exists("/db/blob"), "the file was synced but its directory entry was not");
    }

    @Test
    void syncedFileInSyncedDirectorySurvivesEveryPolicy() {
        for (CrashPolicy policy : CrashPolicy.values()) {
            Harness local = new Harness(policy.ordinal());
            SimKernel host = local.kernel();
            SimFileSystem fileSystem = host.fileSystem();
            SimFileSystem.Handle handle = fileSystem.open("/blob", O_RDWR | O_CREAT);
            byte[] data = "durable".getBytes(StandardCharsets.UTF_8);
            assertEquals(7, fileSystem.write(handle, 0, data, 0, 7, false));
            assertEquals(0, fileSystem.sync(handle, true));
            assertEquals(0, fileSystem.sync(fileSystem.open("/", 0), false));
            fileSystem.crash(policy);
            assertArrayEquals(data, fileSystem.contents("/blob"), policy.name());
        }
    }

    @Test
    void mkdirAndUnlinkAreDurableOnlyAfterTheParentIsSynced() {
        system.mkdir("/a");
        system.mkdir("/a/b");
        fs.crash(CrashPolicy.ALL_LOST);
        assertFalse(fs.exists("/a"));

        system.mkdir("/a");
        system.fsync(system.open("/", O_DIRECTORY));
        system.mkdir("/a/b");
        fs.crash(CrashPolicy.ALL_LOST);
        assertTrue(fs.isDirectory("/a"));
        assertFalse(fs.exists("/a/b"), "/a was never synced after /a/b was made");

        int fd = system.open("/a/file", O_RDWR | O_CREAT);
        write(fd, 0, "keep");
        fsync(fd);
        system.fsync(system.open("/a", O_DIRECTORY));
        system.unlink("/a/file");
        assertFalse(fs.exists("/a/file"));
        fs.crash(CrashPolicy.ALL_LOST);
        assertEquals("keep", text(fs.contents("/a/file")), "the unlink was never made durable");

        system.unlink("/a/file");
        system.fsync(system.open("/a", O_DIRECTORY));
        fs.crash(CrashPolicy.ALL_LOST);
        assertFalse(fs.exists("/a/file"));
    }

    @Test
    void syncFileSystemMakesEverythingDurable() {
        system.mkdir("/p");
        int fd = system.open("/p/x", O_RDWR | O_CREAT);
        write(fd, 0, "all of it");
        system.syncFileSystem(fd);
        fs.crash(CrashPolicy.ALL_LOST);
        assertEquals("all of it", text(fs.contents("/p/x")));
    }

    @Test
    void unsyncedWritesAreLostAndDsyncWritesAreNot() {
        int fd = system.open("/f", O_RDWR | O_CREAT);
        system.fsync(system.open("/", O_DIRECTORY));
        write(fd, 0, "synced");
        fsync(fd);
        write(fd, 0, "SYN");
        write(fd, 6, "+dsync", Submission.RWF_DSYNC);
        write(fd, 12, "-lost");
        system.truncate(fd, 100);
        fs.crash(CrashPolicy.ALL_LOST);
        assertEquals("synced+dsync", text(fs.contents("/f")));
    }

    @Test
    void handlesFromBeforeACrashAreStale() {
        int fd = system.open("/f", O_RDWR | O_CREAT);
        fs.crash(CrashPolicy.ALL_LOST);
        assertEquals(-Errno.EBADF, write(fd, 0, "x"));
        assertEquals(0, fs.openHandles());
    }

    @Test
    void openReportsRealErrors() {
        assertErrno(Errno.ENOENT, () -> system.open("/missing", O_RDWR));
        assertErrno(Errno.ENOENT, () -> system.open("/no/such/dir", O_RDWR | O_CREAT));
        system.open("/f", O_RDWR | O_CREAT);
        assertErrno(Errno.EEXIST, () -> system.open("/f", O_RDWR | O_CREAT | O_EXCL));
        assertErrno(Errno.ENOTDIR, () -> system.open("/f", O_DIRECTORY));
        assertErrno(Errno.ENOTDIR, () -> system.open("/f/child", O_RDWR | O_CREAT));
        system.mkdir("/d");
        assertErrno(Errno.EISDIR, () -> system.open("/d", O_RDWR));
        assertErrno(Errno.EEXIST, () -> system.mkdir("/d"));
        assertErrno(Errno.EISDIR, () -> system.unlink("/d"));
        assertErrno(Errno.ENOTDIR, () -> system.rmdir("/f"));
        system.open("/d/inner", O_RDWR | O_CREAT);
        assertErrno(Errno.ENOTEMPTY, () -> system.rmdir("/d"));
        assertErrno(Errno.ENOTDIR, () -> system.isDirectory("/f"));
        assertFalse(system.isDirectory("/nothing"));
        assertErrno(Errno.EBADF, () -> system.close(99));
        int readOnly = system.open("/f", 0);
        assertEquals(-Errno.EBADF, write(readOnly, 0, "x"));
    }

    @Test
    void listIsSortedAndFdsAreLowestFree() {
        assertEquals(3, system.open("/c", O_RDWR | O_CREAT));
        assertEquals(4, system.open("/a", O_RDWR | O_CREAT));
        assertEquals(5, system.open("/b", O_RDWR | O_CREAT));
        system.close(4);
        assertEquals(4, system.open("/a", O_RDWR));
        assertEquals(List.of("a", "b", "c"), system.list("/"));
        assertEquals(List.of(3, 4, 5), kernel.openFds());
    }

    @Test
    void lockExcludesOtherDescriptionsUntilClosed() {
        int held = system.lock("/LOCK");
        assertErrno(Errno.EWOULDBLOCK, () -> system.lock("/LOCK"));
        system.close(held);
        system.close(system.lock("/LOCK"));
    }

    @Test
    void unlinkedOpenFileStaysReadableAndHoldsItsSpaceUntilClosed() {
        int fd = system.open("/tmp", O_RDWR | O_CREAT);
        write(fd, 0, "still here");
        system.unlink("/tmp");
        assertEquals("still here", read(fd, 0, 32));
        assertEquals(10, fs.usedBytes());
        system.close(fd);
        assertEquals(0, fs.usedBytes());
    }

    static void assertErrno(int errno, org.junit.jupiter.api.function.Executable call) {
        KernelException failure = assertThrows(KernelException.class, call);
        assertEquals(errno, failure.errno(), failure.getMessage());
    }
}
