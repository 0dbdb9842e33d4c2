package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(FdLeakCheck.class)
class LinuxSystemCallsTest {
    private static final UringKernel KERNEL = new UringKernel();
    private static final SystemCalls SYSTEM = KERNEL.system();
    private static final InetSocketAddress LOOPBACK_ANY_PORT =
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @TempDir
    Path temp;

    private final List<Integer> fdsToClose = new ArrayList<>();

    @AfterEach
    void closeFds() {
        fdsToClose.forEach(SYSTEM::close);
    }

    private int keep(int fd) {
        fdsToClose.add(fd);
        return fd;
    }

    private String path(String name) {
        return temp.resolve(name).toString();
    }

    private static KernelException failsWith(int errno, Executable call) {
        KernelException thrown = assertThrows(KernelException.class, call);
        assertEquals(errno, thrown.errno(), () -> "got " + thrown.getMessage());
        return thrown;
    }

    @Test
    void theSystemCallsAreOneThreadSafeInstance() {
        assertTrue(KERNEL.system() == new UringKernel().system());
    }

    @Test
    void aCreatedFileCanBeSizedTruncatedSyncedAndUnlinked() throws IOException {
        String file = path("blob");
        int fd = keep(SYSTEM.open(file, SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        assertEquals(0, SYSTEM.size(fd));

        SYSTEM.truncate(fd, 100);
        assertEquals(100, SYSTEM.size(fd));
        assertEquals(100, Files.size(temp.resolve("blob")));
        SYSTEM.truncate(fd, 10);
        assertEquals(10, SYSTEM.size(fd));
        SYSTEM.fsync(fd);
        LinuxSystemCalls.instance().fdatasync(fd);
        SYSTEM.syncFileSystem(fd);

        SYSTEM.unlink(file);
        assertFalse(Files.exists(temp.resolve("blob")));
        assertEquals(10, SYSTEM.size(fd), "an unlinked file stays usable through its fd");
    }

    @Test
    void createdFilesAreMode0644AndCloseOnExec() throws IOException {
        int fd = keep(SYSTEM.open(path("mode"), SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        assertEquals("rw-r--r--", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(temp.resolve("mode"))));
        String fdInfo = Files.readString(Path.of("/proc/self/fdinfo/" + fd));
        int flags = Integer.parseInt(fdInfo.lines().filter(line -> line.startsWith("flags:")).findFirst()
                .orElseThrow().substring("flags:".length()).trim(), 8);
        assertTrue((flags & 02000000) != 0, "O_CLOEXEC missing: " + Integer.toOctalString(flags));
    }

    @Test
    void openingAMissingFileWithoutCreateFailsWithEnoentNamingThePath() {
        String missing = path("missing");
        KernelException thrown = failsWith(Errno.ENOENT, () -> SYSTEM.open(missing, SystemCalls.O_RDWR));
        assertEquals("open", thrown.call());
        assertEquals(missing, thrown.subject());
        assertTrue(thrown.getMessage().contains(missing) && thrown.getMessage().contains("ENOENT"));
    }

    @Test
    void exclusiveCreateOfAnExistingFileFailsWithEexist() {
        String file = path("once");
        keep(SYSTEM.open(file, SystemCalls.O_RDWR | SystemCalls.O_CREAT | SystemCalls.O_EXCL));
        failsWith(Errno.EEXIST, () -> SYSTEM.open(file, SystemCalls.O_RDWR | SystemCalls.O_CREAT | SystemCalls.O_EXCL));
    }

    @Test
    void directoriesAreCreatedListedSortedSyncedAndRemoved() {
        String directory = path("partition");
        SYSTEM.mkdir(directory);
        assertTrue(SYSTEM.isDirectory(directory));
        assertEquals(List.of(), SYSTEM.list(directory));
        for (String name : List.of("b", "a", "c-1", "C")) {
            SYSTEM.close(SYSTEM.open(directory + "/" + name, SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        }
        SYSTEM.mkdir(directory + "/nested");

        assertEquals(List.of("C", "a", "b", "c-1", "nested"), SYSTEM.list(directory));

        int directoryFd = SYSTEM.open(directory, SystemCalls.O_DIRECTORY);
        try {
            SYSTEM.fsync(directoryFd);
        } finally {
            SYSTEM.close(directoryFd);
        }
        failsWith(Errno.ENOTEMPTY, () -> SYSTEM.rmdir(directory));
        failsWith(Errno.EEXIST, () -> SYSTEM.mkdir(directory));
        for (String name : List.of("a", "b", "c-1", "C")) {
            SYSTEM.unlink(directory + "/" + name);
        }
        SYSTEM.rmdir(directory + "/nested");
        SYSTEM.rmdir(directory);
        assertFalse(SYSTEM.isDirectory(directory));
    }

    @Test
    void aLargeDirectoryIsListedCompletely() {
        String directory = path("large");
        SYSTEM.mkdir(directory);
        List<String> expected = IntStream.range(0, 1500).mapToObj(i -> String.format("blob-%05d", i)).toList();
        for (String name : expected) {
            SYSTEM.close(SYSTEM.open(directory + "/" + name, SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        }
        assertEquals(expected, SYSTEM.list(directory));
    }

    @Test
    void isDirectoryIsFalseWhenMissingAndFailsWithEnotdirForAFile() {
        assertFalse(SYSTEM.isDirectory(path("nothing")));
        String file = path("file");
        SYSTEM.close(SYSTEM.open(file, SystemCalls.O_RDWR | SystemCalls.O_CREAT));

        KernelException thrown = failsWith(Errno.ENOTDIR, () -> SYSTEM.isDirectory(file));
        assertEquals(file, thrown.subject());
    }

    @Test
    void listingFailsNamingThePath() {
        String missing = path("gone");
        assertEquals(missing, failsWith(Errno.ENOENT, () -> SYSTEM.list(missing)).subject());
        String file = path("plain");
        SYSTEM.close(SYSTEM.open(file, SystemCalls.O_RDWR | SystemCalls.O_CREAT));
        failsWith(Errno.ENOTDIR, () -> SYSTEM.list(file));
        failsWith(Errno.ENOENT, () -> SYSTEM.unlink(missing));
        failsWith(Errno.ENOENT, () -> SYSTEM.rmdir(missing));
    }

    @Test
    void aLockIsRefusedWhileHeldAndFreeAfterClose() {
        String lockFile = path("LOCK");
        int held = SYSTEM.lock(lockFile);
        try {
            KernelException refused = failsWith(Errno.EWOULDBLOCK, () -> SYSTEM.lock(lockFile));
            assertEquals(Errno.EAGAIN, refused.errno());
            assertEquals(lockFile, refused.subject());
        } finally {
            SYSTEM.close(held);
        }
        SYSTEM.close(SYSTEM.lock(lockFile));
    }

    @Test
    void bindingAnAddressSomeoneListensOnFailsWithEaddrinuseNamingTheAddress() {
        int first = keep(SYSTEM.socket(LOOPBACK_ANY_PORT));
        SYSTEM.bindAndListen(first, LOOPBACK_ANY_PORT, 8);
        InetSocketAddress taken = SYSTEM.localAddress(first);
        assertEquals(InetAddress.getLoopbackAddress(), taken.getAddress());
        assertTrue(taken.getPort() > 0);

        int second = keep(SYSTEM.socket(taken));
        KernelException thrown = failsWith(Errno.EADDRINUSE, () -> SYSTEM.bindAndListen(second, taken, 8));
        assertEquals("bind", thrown.call());
        assertEquals("127.0.0.1:" + taken.getPort(), thrown.subject());
    }

    @Test
    void socketsAreNonBlockingAndCloseOnExec() throws IOException {
        int fd = keep(SYSTEM.socket(LOOPBACK_ANY_PORT));
        String fdInfo = Files.readString(Path.of("/proc/self/fdinfo/" + fd));
        int flags = Integer.parseInt(fdInfo.lines().filter(line -> line.startsWith("flags:")).findFirst()
                .orElseThrow().substring("flags:".length()).trim(), 8);
        assertTrue((flags & 04000) != 0, "O_NONBLOCK missing: " + Integer.toOctalString(flags));
        assertTrue((flags & 02000000) != 0, "O_CLOEXEC missing: " + Integer.toOctalString(flags));
    }

    @Test
    void socketCallsOnAnUnconnectedSocketFailNamingTheFd() {
        int fd = keep(SYSTEM.socket(LOOPBACK_ANY_PORT));
        KernelException thrown = failsWith(Errno.ENOTCONN, () -> SYSTEM.peerAddress(fd));
        assertEquals("fd " + fd, thrown.subject());
        failsWith(Errno.ENOTCONN, () -> SYSTEM.shutdownWrite(fd));
        failsWith(Errno.EBADF, () -> SYSTEM.close(-1));
    }

    @Test
    void socketAddressesReadWholeAfterShorterOnesAndFailuresOnPlatformAndVirtualThreads() throws Exception {
        // A platform thread reuses one scratch for these calls: the IPv4 address (16 bytes) read first must not
        // shorten the IPv6 one (28 bytes) read after it, and a failed call leaves nothing behind. A virtual thread
        // uses memory of its own per call; both answer the same.
        InetSocketAddress ipv6Loopback = new InetSocketAddress(InetAddress.getByName("::1"), 0);
        int ipv4 = keep(SYSTEM.socket(LOOPBACK_ANY_PORT));
        SYSTEM.bindAndListen(ipv4, LOOPBACK_ANY_PORT, 8);
        int ipv6 = keep(SYSTEM.socket(ipv6Loopback));
        SYSTEM.bindAndListen(ipv6, ipv6Loopback, 8);
        int unconnected = keep(SYSTEM.socket(LOOPBACK_ANY_PORT));
        java.util.concurrent.Callable<List<Object>> calls = () -> {
            List<Object> answers = new ArrayList<>();
            answers.add(SYSTEM.localAddress(ipv4));
            answers.add(failsWith(Errno.ENOTCONN, () -> SYSTEM.peerAddress(unconnected)).subject());
            SYSTEM.noDelay(ipv4);
            answers.add(SYSTEM.localAddress(ipv6));
            answers.add(SYSTEM.localAddress(ipv4));
            return answers;
        };
        List<Object> onPlatform = calls.call();
        assertEquals(InetAddress.getByName("::1"), ((InetSocketAddress) onPlatform.get(2)).getAddress());
        assertEquals(onPlatform.get(0), onPlatform.get(3));
        assertEquals("fd " + unconnected, onPlatform.get(1));
        List<List<Object>> onVirtual = new ArrayList<>();
        Thread virtual = Thread.ofVirtual().start(() -> {
            try {
                onVirtual.add(calls.call());
            } catch (Exception failed) {
                throw new AssertionError(failed);
            }
        });
        virtual.join();
        assertEquals(List.of(onPlatform), onVirtual);
    }

    @Test
    void unresolvedAddressesAndNulInPathsAreRejected() {
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("example.invalid", 80);
        assertThrows(IllegalArgumentException.class, () -> SYSTEM.socket(unresolved));
        assertThrows(IllegalArgumentException.class, () -> SYSTEM.open(path("a\0b"), SystemCalls.O_RDWR));
    }

    @Test
    void sockaddrEncodesIpv4AndIpv6ForConnect() throws IOException {
        try (UringRing ring = KERNEL.openRing(1)) {
            MemorySegment ipv4 = SYSTEM.sockaddr(ring, new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080));
            try {
                assertEquals(16, ipv4.byteSize());
                assertEquals(2, ipv4.get(ValueLayout.JAVA_SHORT, 0), "AF_INET");
                assertEquals(8080, ipv4.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
                assertArrayEquals(new byte[] {127, 0, 0, 1}, ipv4.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE));
                assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080),
                        LinuxSystemCalls.decodeSockaddr(ipv4, -1));
            } finally {
                ring.free(ipv4);
            }

            Inet6Address scoped = Inet6Address.getByAddress(null,
                    InetAddress.getByName("fe80::1").getAddress(), 3);
            MemorySegment ipv6 = SYSTEM.sockaddr(ring, new InetSocketAddress(scoped, 443));
            try {
                assertEquals(28, ipv6.byteSize());
                assertEquals(10, ipv6.get(ValueLayout.JAVA_SHORT, 0), "AF_INET6");
                assertEquals(443, ipv6.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
                assertArrayEquals(scoped.getAddress(), ipv6.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE));
                assertEquals(3, ipv6.get(ValueLayout.JAVA_INT, 24), "scope id");
                assertEquals(new InetSocketAddress(scoped, 443), LinuxSystemCalls.decodeSockaddr(ipv6, -1));
            } finally {
                ring.free(ipv6);
            }
        }
    }

    @Test
    void theSpiOpenFlagsAreTranslatedToThisArchitecture() {
        int translated = LinuxSystemCalls.nativeOpenFlags(SystemCalls.O_DIRECTORY | SystemCalls.O_DIRECT
                | SystemCalls.O_RDWR);
        assertEquals(Libc.NATIVE_O_DIRECTORY | Libc.NATIVE_O_DIRECT | SystemCalls.O_RDWR | Libc.O_CLOEXEC, translated);
    }
}
