package dev.lockstep.sim;

import static dev.lockstep.kernel.SystemCalls.O_CREAT;
import static dev.lockstep.kernel.SystemCalls.O_DIRECTORY;
import static dev.lockstep.kernel.SystemCalls.O_RDWR;
import static dev.lockstep.sim.SimFileSystemTest.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StorageFaultsTest {

    private static final int CALLS = 50;

    /** A kernel whose file system has a file /f (10 bytes, durable) and a directory /d, set up without faults. */
    private static final class Fixture {
        final Harness harness = new Harness(23);
        final SimKernel kernel = harness.kernel();
        final SystemCalls system = kernel.system();
        final SimRing ring = kernel.openRing(4);
        final SimFileSystem fs = kernel.fileSystem();
        final int fd;
        long nextUserData = 1;

        Fixture(StorageFaults faults) {
            fd = system.open("/f", O_RDWR | O_CREAT);
            system.mkdir("/d");
            assertEquals(10, write(0, new byte[10]));
            system.syncFileSystem(fd);
            fs.setFaults(faults);
        }

        int write(long offset, byte[] data) {
            MemorySegment buffer = Harness.bytes(ring, data);
            int result = harness.run(ring, Harness.io(Opcode.WRITE, fd, buffer, data.length, offset, nextUserData++));
            ring.free(buffer);
            return result;
        }

        int read(long offset, int length) {
            MemorySegment buffer = ring.allocate(length);
            int result = harness.run(ring, Harness.io(Opcode.READ, fd, buffer, length, offset, nextUserData++));
            ring.free(buffer);
            return result;
        }

        int fsync() {
            return harness.run(ring, Harness.fsync(fd, nextUserData++));
        }
    }

    @Test
    void rateOneFailsEveryCallOfItsKindWithEio() {
        Fixture open = new Fixture(StorageFaults.builder().openRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertErrno(Errno.EIO, () -> open.system.open("/f", O_RDWR));
            assertErrno(Errno.EIO, () -> open.system.open("/new", O_RDWR | O_CREAT));
        }
        assertTrue(!open.fs.exists("/new"), "a failed open creates nothing");

        Fixture read = new Fixture(StorageFaults.builder().readRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertEquals(-Errno.EIO, read.read(0, 10));
        }

        Fixture write = new Fixture(StorageFaults.builder().writeRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertEquals(-Errno.EIO, write.write(0, new byte[] {1, 2, 3}));
        }
        assertEquals(10, write.fs.contents("/f").length);
        assertTrue(Arrays.equals(new byte[10], write.fs.contents("/f")), "no partial writes at partialWriteRate 0");

        Fixture sync = new Fixture(StorageFaults.builder().syncRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertEquals(-Errno.EIO, sync.fsync());
            assertErrno(Errno.EIO, () -> sync.system.fsync(sync.fd));
            assertErrno(Errno.EIO, () -> sync.system.syncFileSystem(sync.fd));
        }

        Fixture resize = new Fixture(StorageFaults.builder().resizeRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertErrno(Errno.EIO, () -> resize.system.truncate(resize.fd, 3));
        }
        assertEquals(10, resize.system.size(resize.fd));

        Fixture remove = new Fixture(StorageFaults.builder().removeRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertErrno(Errno.EIO, () -> remove.system.unlink("/f"));
            assertErrno(Errno.EIO, () -> remove.system.rmdir("/d"));
        }
        assertTrue(remove.fs.exists("/f") && remove.fs.exists("/d"));

        Fixture scan = new Fixture(StorageFaults.builder().scanRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            assertErrno(Errno.EIO, () -> scan.system.list("/"));
        }
    }

    @Test
    void rateZeroNeverFails() {
        Fixture fixture = new Fixture(StorageFaults.builder().allRates(0).partialWriteRate(1).build());
        for (int i = 0; i < CALLS; i++) {
            int fd = fixture.system.open("/f", O_RDWR);
            fixture.system.close(fd);
            assertEquals(10, fixture.read(0, 10));
            assertEquals(3, fixture.write(i, new byte[] {1, 2, 3}));
            assertEquals(0, fixture.fsync());
            fixture.system.truncate(fixture.fd, 10 + i);
            fixture.system.list("/");
            fixture.system.mkdir("/tmp" + i);
            fixture.system.rmdir("/tmp" + i);
            fixture.system.close(fixture.system.open("/g" + i, O_RDWR | O_CREAT));
            fixture.system.unlink("/g" + i);
        }
    }

    @Test
    void failedFsyncLeavesTheDataUnsynced() {
        Fixture fixture = new Fixture(StorageFaults.builder().syncRate(1).build());
        assertEquals(4, fixture.write(0, new byte[] {9, 9, 9, 9}));
        assertEquals(-Errno.EIO, fixture.fsync());
        assertEquals(9, fixture.fs.contents("/f")[0], "the page cache still has it");
        fixture.fs.crash(CrashPolicy.ALL_LOST);
        assertTrue(Arrays.equals(new byte[10], fixture.fs.contents("/f")), "but the disk never did");
    }

    @Test
    void failedWriteMayLeaveAProperPrefixInThePageCache() {
        Fixture fixture = new Fixture(StorageFaults.builder().writeRate(1).partialWriteRate(1).build());
        byte[] data = new byte[100];
        Arrays.fill(data, (byte) 7);
        assertEquals(-Errno.EIO, fixture.write(0, data));
        byte[] contents = fixture.fs.contents("/f");
        int prefix = 0;
        while (prefix < contents.length && contents[prefix] == 7) {
            prefix++;
        }
        assertTrue(prefix >= 1 && prefix < 100, "prefix of " + prefix + " bytes");
        for (int i = prefix; i < contents.length; i++) {
            assertEquals(0, contents[i]);
        }
        fixture.fs.crash(CrashPolicy.ALL_LOST);
        assertTrue(Arrays.equals(new byte[10], fixture.fs.contents("/f")), "the prefix was never synced");
    }

    @Test
    void capacityCutsWritesShortHonestlyThenFailsWithEnospc() {
        Fixture fixture = new Fixture(StorageFaults.builder().capacityBytes(1000).build());
        assertEquals(590, fixture.write(10, new byte[590]));
        assertEquals(600, fixture.fs.usedBytes());
        assertEquals(400, fixture.write(600, new byte[600]), "only 400 bytes fit");
        assertEquals(1000, fixture.system.size(fixture.fd));
        assertEquals(-Errno.ENOSPC, fixture.write(1000, new byte[1]));
        assertEquals(100, fixture.write(0, new byte[100]), "overwriting needs no space");
        assertErrno(Errno.ENOSPC, () -> fixture.system.truncate(fixture.fd, 1001));
        assertErrno(Errno.ENOSPC, () -> {
            int other = fixture.system.open("/other", O_RDWR | O_CREAT);
            fixture.system.truncate(other, 1);
        });
        fixture.system.truncate(fixture.fd, 500);
        assertEquals(500, fixture.write(500, new byte[600]));
        fixture.system.fsync(fixture.system.open("/", O_DIRECTORY));
    }
}
