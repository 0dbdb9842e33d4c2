package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.ReadOptions;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import dev.lockstep.StorageFullException;
import dev.lockstep.Waker;
import dev.lockstep.WriteOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults from the real world, each a typed exception with no synced data lost: a full file system (a 1 MiB
 * tmpfs mounted for this class; the tests run as root), a blob's file deleted from outside while open, and a
 * peer that resets its connection ({@code SO_LINGER 0}) while a receive or a send waits on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringFaultsTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int TMPFS_BYTES = 1 << 20;

    /** A 1 MiB tmpfs, or null where this process may not mount one. */
    private static Path tmpfs;
    private static String mountRefusal;

    @TempDir
    Path directory;

    @BeforeAll
    static void mountASmallTmpfs() throws IOException, InterruptedException {
        Path mountPoint = Files.createTempDirectory("lockstep-tmpfs");
        Result mounted = run("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_BYTES, "tmpfs", mountPoint.toString());
        if (mounted.exitCode == 0) {
            tmpfs = mountPoint;
        } else {
            mountRefusal = mounted.output;
            Files.delete(mountPoint);
        }
    }

    @AfterAll
    static void unmountIt() throws IOException, InterruptedException {
        if (tmpfs != null) {
            Path mountPoint = tmpfs;
            tmpfs = null;
            Result unmounted = run("umount", mountPoint.toString());
            if (unmounted.exitCode != 0) {
                // Something still holds a file there (a runner that hung): detach it anyway, then fail.
                run("umount", "-l", mountPoint.toString());
            }
            Files.delete(mountPoint);
            assertEquals(0, unmounted.exitCode, () -> "umount " + mountPoint + ": " + unmounted.output);
        }
    }

    private record Result(int exitCode, String output) {
    }

    private static Result run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        try (InputStream output = process.getInputStream()) {
            String text = new String(output.readAllBytes(), StandardCharsets.UTF_8);
            return new Result(process.waitFor(), text);
        }
    }

    private static void assumeTmpfs() {
        assumeTrue(tmpfs != null, () -> "mounting a tmpfs is not permitted here: " + mountRefusal);
    }

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFullFileSystemFailsWritesWithStorageFullAndKeepsWhatWasSynced() {
        assumeTmpfs();
        Path root = tmpfs.resolve("full");
        byte[] synced = random(256 * 1024, 1);
        byte[] chunk = random(256 * 1024, 2);
        String blobName = "p/log";
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "log").await().blob()) {
                blob.writeAt(0, synced).await();
                blob.sync().await();
                StorageFullException full = null;
                // Four more chunks would need 1.25 MiB in a 1 MiB file system: a write or a sync must fail.
                for (int i = 1; i <= 4 && full == null; i++) {
                    try {
                        blob.writeAt((long) i * chunk.length, chunk).await();
                        blob.sync().await();
                    } catch (StorageFullException failure) {
                        full = failure;
                    }
                }
                assertNotNull(full, "writing 1.25 MiB into a 1 MiB tmpfs never failed");
                assertTrue(full.getMessage().contains(blobName), full.getMessage());
                assertTrue(full.getMessage().contains("ENOSPC"), full.getMessage());
                // The runtime goes on: the synced bytes read back through the same open.
                assertArrayEquals(synced, blob.readAt(0, synced.length).await());
            }
            OpenedBlob reopened = ctx.open("p", "log").await();
            try (Blob blob = reopened.blob()) {
                assertTrue(reopened.length() >= synced.length, "length " + reopened.length());
                assertArrayEquals(synced, blob.readAt(0, synced.length).await());
                // Freeing space makes writes work again.
                blob.resize(synced.length).await();
                blob.writeAt(synced.length, chunk).await();
                blob.sync().await();
            }
            return null;
        });
        byte[][] read = UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            OpenedBlob reopened = ctx.open("p", "log").await();
            try (Blob blob = reopened.blob()) {
                assertEquals(synced.length + chunk.length, reopened.length());
                return new byte[][] {blob.readAt(0, synced.length).await(),
                        blob.readAt(synced.length, chunk.length).await()};
            }
        });
        assertArrayEquals(synced, read[0], "synced data survives the full disk and a restart");
        assertArrayEquals(chunk, read[1]);
    }

    @Test
    void aSyncWriteIntoAFullFileSystemFailsWithStorageFull() {
        assumeTmpfs();
        Path root = tmpfs.resolve("full-sync");
        UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "big").await().blob()) {
                byte[] tooBig = new byte[TMPFS_BYTES + 4096];
                assertThrows(StorageFullException.class,
                        () -> blob.writeAt(0, new byte[][] {tooBig}, WriteOptions.SYNC).await());
            }
            ctx.remove("p", utf8("big")).await();
            return null;
        });
    }

    /**
     * An allocation the file system has no room for fails with StorageFullException naming the blob and leaves its
     * length; one that fits reserves its space, so writes inside it succeed after the file system filled up.
     */
    @Test
    void anAllocationPastTheFreeSpaceFailsWithStorageFullAndWritesInsideOneFindRoomWhenFull() {
        assumeTmpfs();
        Path root = tmpfs.resolve("allocate");
        int reserved = 128 * 1024;
        byte[] record = random(reserved, 5);
        byte[] chunk = random(256 * 1024, 6);
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            try (Blob wal = ctx.open("p", "wal").await().blob(); Blob filler = ctx.open("p", "filler").await().blob()) {
                StorageFullException full = assertThrows(StorageFullException.class,
                        () -> wal.allocate(0, 2L * TMPFS_BYTES).await());
                assertTrue(full.getMessage().contains("p/wal") && full.getMessage().contains("ENOSPC"),
                        full.getMessage());
                assertEquals(0, wal.length());
                wal.allocate(0, reserved).await();
                assertEquals(reserved, wal.length());
                boolean filled = false;
                for (int i = 0; i < 8 && !filled; i++) {
                    try {
                        filler.writeAt((long) i * chunk.length, chunk).await();
                    } catch (StorageFullException expected) {
                        filled = true;
                    }
                }
                assertTrue(filled, "2 MiB of filler never filled a 1 MiB tmpfs");
                wal.writeAt(0, record).await();
                wal.sync().await();
                assertArrayEquals(record, wal.readAt(0, reserved).await());
            } finally {
                ctx.remove("p", null).await();
            }
            return null;
        });
    }

    /*
     * tmpfs has no uncached I/O: the kernel answers RWF_DONTCACHE with EOPNOTSUPP. The hints are documented as
     * best effort that never changes a result, so both calls must behave as without the hint.
     */

    @Test
    void aReadWithTheDontCacheHintReturnsTheBytesOnAFileSystemWithoutUncachedIo() {
        assumeTmpfs();
        Path root = tmpfs.resolve("read-hint");
        byte[] data = random(16 * 1024, 3);
        byte[] read = UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "hint").await().blob()) {
                blob.writeAt(0, data).await();
                // A hang guard, not a speed limit: the read takes microseconds, or never finishes.
                return ctx.timeout(Duration.ofSeconds(5),
                        () -> blob.readAt(0, data.length, ReadOptions.DONT_CACHE).await());
            } finally {
                ctx.remove("p", null).await();
            }
        });
        assertArrayEquals(data, read);
    }

    @Test
    void aWriteWithTheDontCacheHintWritesOnAFileSystemWithoutUncachedIo() {
        assumeTmpfs();
        Path root = tmpfs.resolve("write-hint");
        byte[] data = random(16 * 1024, 4);
        byte[] read = UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "hint").await().blob()) {
                blob.writeAt(0, new byte[][] {data}, WriteOptions.DONT_CACHE).await();
                blob.writeAt(data.length, new byte[][] {data}, WriteOptions.DONT_CACHE.with(WriteOptions.SYNC))
                        .await();
                return blob.readAt(0, 2 * data.length).await();
            } finally {
                ctx.remove("p", null).await();
            }
        });
        assertArrayEquals(data, Arrays.copyOf(read, data.length));
        assertArrayEquals(data, Arrays.copyOfRange(read, data.length, 2 * data.length));
    }

    /**
     * A file system out of inodes (a tmpfs with 16, mounted for this test) refuses a new entry with data space
     * left: an open that would create a blob fails with StorageFullException naming it and ENOSPC, creates
     * nothing, and an open of a blob that exists still works, as the simulator's metadata-full fault has it.
     */
    @Test
    void aFileSystemOutOfInodesFailsCreatingOpensWithStorageFullNamingTheBlob() throws Exception {
        assumeTmpfs();
        Path mountPoint = Files.createTempDirectory("lockstep-inodes");
        Result mounted = run("mount", "-t", "tmpfs", "-o", "size=1m,nr_inodes=16", "tmpfs", mountPoint.toString());
        assertEquals(0, mounted.exitCode, mounted.output);
        try {
            String outcome = UringRunner.builder().workers(1).ringEntries(4).storage(mountPoint.resolve("store"))
                    .build().start(ctx -> {
                        ctx.open("p", "first").await().blob().close();
                        StorageFullException full = null;
                        int created = 1;
                        for (int i = 0; i < 32 && full == null; i++) {
                            try {
                                ctx.open("p", "blob" + i).await().blob().close();
                                created++;
                            } catch (StorageFullException refused) {
                                full = refused;
                            }
                        }
                        assertNotNull(full, "32 blobs fit in 16 inodes");
                        assertEquals(created, ctx.scan("p").await().size(), "the refused open created nothing");
                        ctx.open("p", "first", dev.lockstep.OpenOptions.OPEN_EXISTING).await().blob().close();
                        return full.getMessage();
                    });
            assertTrue(outcome.contains("'p/blob") && outcome.contains("ENOSPC"), outcome);
        } finally {
            Result unmounted = run("umount", mountPoint.toString());
            if (unmounted.exitCode != 0) {
                run("umount", "-l", mountPoint.toString());
            }
            Files.delete(mountPoint);
        }
    }

    @Test
    void aFileDeletedUnderAnOpenBlobStaysReadableThroughItAndItsNameOpensANewEmptyBlob() throws Exception {
        Path root = directory.resolve("store");
        Path file = UringStorageCallsTest.blobFile(root, "p", utf8("doomed"));
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            Blob old = ctx.open("p", "doomed").await().blob();
            old.writeAt(0, utf8("synced")).await();
            old.sync().await();
            old.writeAt(6, utf8("+unsynced")).await();

            Files.delete(file);

            assertArrayEquals(utf8("synced+unsynced"), old.readAt(0, 15).await());
            old.writeAt(15, utf8("!")).await();
            old.sync().await();
            assertArrayEquals(utf8("synced+unsynced!"), old.readAt(0, 16).await());
            assertEquals(List.of(), ctx.scan("p").await(), "the partition no longer lists it");

            OpenedBlob fresh = ctx.open("p", "doomed").await();
            assertEquals(0, fresh.length());
            try (Blob blob = fresh.blob()) {
                blob.writeAt(0, utf8("fresh")).await();
                blob.sync().await();
                assertArrayEquals(utf8("synced+unsynced!"), old.readAt(0, 16).await(), "independent of the new one");
            }
            old.close();
            return null;
        });
        assertArrayEquals(utf8("fresh"), Files.readAllBytes(file));
    }

    /** A plain JDK client on its own platform thread, told when to reset. */
    private static final class ResettingClient implements AutoCloseable {
        final CountDownLatch connected = new CountDownLatch(1);
        final CountDownLatch resetNow = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread;

        ResettingClient(InetSocketAddress server, byte[] greeting) {
            thread = Thread.ofPlatform().name("resetting-client").start(() -> {
                try (Socket socket = new Socket()) {
                    socket.connect(server);
                    OutputStream out = socket.getOutputStream();
                    out.write(greeting);
                    out.flush();
                    connected.countDown();
                    resetNow.await();
                    // SO_LINGER 0: close sends RST instead of FIN.
                    socket.setSoLinger(true, 0);
                } catch (Throwable thrown) {
                    failure.set(thrown);
                    connected.countDown();
                }
            });
        }

        @Override
        public void close() {
            resetNow.countDown();
            try {
                thread.join();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for the JDK client", interrupted);
            }
            if (failure.get() != null) {
                fail("the JDK client failed", failure.get());
            }
        }
    }

    @Test
    void aResetWhileAReceiveWaitsFailsItTypedAndPoisonsTheStreamWhileTheRuntimeServesOthers() {
        UringRunner.builder().workers(2).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (ResettingClient client = new ResettingClient(listener.localAddress(), utf8("hi"));
                     Connection server = accepting.await()) {
                    assertEquals("hi", new String(server.stream().recv(2).await(), StandardCharsets.UTF_8));
                    Operation<byte[]> waiting = server.stream().recv(100);
                    assertFalse(waiting.poll(Waker.noop()).isReady(), "the client sent nothing more");
                    client.resetNow.countDown();
                    RecvFailedException reset = assertThrows(RecvFailedException.class, waiting::await);
                    assertTrue(reset.getMessage().contains("ECONNRESET"), reset.getMessage());
                    ClosedException poisoned = assertThrows(ClosedException.class,
                            () -> server.stream().recv(1).await());
                    assertTrue(poisoned.getMessage().contains("failed receive"), poisoned.getMessage());
                    // The sink was not poisoned by the stream: it tries, and the kernel's refusal is typed.
                    SendFailedException refused = assertThrows(SendFailedException.class,
                            () -> server.sink().send(utf8("anyone?")).await());
                    assertTrue(refused.getMessage().contains("EPIPE") || refused.getMessage().contains("ECONNRESET"),
                            refused.getMessage());
                    assertThrows(ClosedException.class, () -> server.sink().send(utf8("again")).await());
                }
                // The listener and the runtime serve the next client as if nothing happened.
                Operation<Connection> next = listener.accept();
                try (Connection client = ctx.dial(listener.localAddress()).await(); Connection server = next.await()) {
                    client.sink().send(utf8("next")).await();
                    assertEquals("next", new String(server.stream().recv(4).await(), StandardCharsets.UTF_8));
                }
            }
            return null;
        });
    }

    @Test
    void aResetWhileASendWaitsFailsItTypedAndPoisonsTheSinkOnly() {
        // Far more than loopback's socket buffers hold, so the send is still waiting when the reset comes.
        byte[] flood = new byte[64 << 20];
        UringRunner.builder().workers(1).ringEntries(4).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                try (ResettingClient client = new ResettingClient(listener.localAddress(), utf8("x"));
                     Connection server = accepting.await()) {
                    assertEquals("x", new String(server.stream().recv(1).await(), StandardCharsets.UTF_8));
                    Operation<Void> sending = server.sink().send(flood);
                    assertFalse(sending.poll(Waker.noop()).isReady(), "64 MiB fit in the socket buffers");
                    client.resetNow.countDown();
                    SendFailedException reset = assertThrows(SendFailedException.class, sending::await);
                    assertTrue(reset.getMessage().contains("ECONNRESET") || reset.getMessage().contains("EPIPE"),
                            reset.getMessage());
                    assertThrows(ClosedException.class, () -> server.sink().send(utf8("more")).await());
                    // The stream is not poisoned by the sink: it receives, and learns the connection is gone.
                    RecvFailedException ended = assertThrows(RecvFailedException.class,
                            () -> server.stream().recv(1).await());
                    assertInstanceOf(RecvFailedException.class, ended);
                    assertThrows(ClosedException.class, () -> server.stream().recv(1).await());
                }
            }
            return null;
        });
    }
}
