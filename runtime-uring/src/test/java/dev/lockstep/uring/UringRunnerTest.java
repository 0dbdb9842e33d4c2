package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.BindFailedException;
import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.StorageHeldException;
import dev.lockstep.StorageIoException;
import dev.lockstep.WriteOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The production runner end to end on the real kernel: storage, network, timers, several workers. */
class UringRunnerTest {
    @TempDir
    Path directory;

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void storageRoundTripSurvivesARestart() {
        Path root = directory.resolve("store");
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            OpenedBlob opened = ctx.open("log", "segment-0").await();
            assertEquals(0, opened.length());
            try (Blob blob = opened.blob()) {
                blob.writeAt(0, "hello".getBytes(StandardCharsets.UTF_8)).await();
                blob.writeAt(5, new byte[][] {", ".getBytes(), "world".getBytes()}, WriteOptions.SYNC).await();
                blob.sync().await();
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(10, 5).await());
                blob.resize(5).await();
                blob.sync().await();
            }
            return null;
        });
        byte[] read = UringRunner.builder().workers(2).storage(root).build().start(ctx -> {
            OpenedBlob opened = ctx.open("log", "segment-0").await();
            try (Blob blob = opened.blob()) {
                assertEquals(5, opened.length());
                assertEquals(1, ctx.scan("log").await().size());
                return blob.readAt(0, 5).await();
            }
        });
        assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), read);
    }

    @Test
    void echoOverLoopbackAcrossWorkers() {
        String echoed = UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            Listener listener = ctx.bind(LOOPBACK).await();
            InetSocketAddress address = listener.localAddress();
            Handle<Void> server = ctx.child("server").spawnOn(1, c -> {
                try (Connection connection = listener.accept().await()) {
                    byte[] request = connection.stream().recv(4).await();
                    connection.sink().send(request, "!".getBytes()).await();
                }
                return null;
            });
            try (Connection client = ctx.dial(address).await()) {
                client.sink().send("ping".getBytes()).await();
                String reply = new String(client.stream().recv(5).await(), StandardCharsets.UTF_8);
                server.await();
                listener.close();
                return reply;
            }
        });
        assertEquals("ping!", echoed);
    }

    @Test
    void sleepsAndTimeoutsUseTheWorkerClock() {
        long slept = UringRunner.builder().workers(1).ringEntries(1).build().start(ctx -> {
            var before = ctx.now();
            ctx.sleep(Duration.ofMillis(20));
            assertThrows(dev.lockstep.TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(5), () -> {
                        ctx.sleep(Duration.ofSeconds(30));
                        return null;
                    }));
            return Duration.between(before, ctx.now()).toMillis();
        });
        assertTrue(slept >= 20, "slept " + slept + " ms");
    }

    @Test
    void badInputIsRejectedNamingTheValue() throws Exception {
        IllegalArgumentException ring = assertThrows(IllegalArgumentException.class,
                () -> UringRunner.builder().ringEntries(0).build());
        assertTrue(ring.getMessage().contains("was 0"), ring.getMessage());
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> UringRunner.builder().ringEntries(65536).build());
        assertTrue(big.getMessage().contains("was 65536"), big.getMessage());
        IllegalArgumentException workers = assertThrows(IllegalArgumentException.class,
                () -> UringRunner.builder().workers(0).build());
        assertTrue(workers.getMessage().contains("was 0"), workers.getMessage());

        Path file = Files.writeString(directory.resolve("not-a-directory"), "x");
        StorageIoException notDirectory = assertThrows(StorageIoException.class,
                () -> UringRunner.builder().workers(1).storage(file).build().start(ctx -> null));
        assertTrue(notDirectory.getMessage().contains(file.toString()), notDirectory.getMessage());

        AtomicReference<InetSocketAddress> bound = new AtomicReference<>();
        BindFailedException inUse = assertThrows(BindFailedException.class,
                () -> UringRunner.builder().workers(1).build().start(ctx -> {
                    try (Listener first = ctx.bind(LOOPBACK).await()) {
                        bound.set(first.localAddress());
                        ctx.bind(first.localAddress()).await();
                    }
                    return null;
                }));
        assertTrue(inUse.getMessage().contains(Integer.toString(bound.get().getPort())), inUse.getMessage());
    }

    @Test
    void aSecondRunnerOnHeldStorageIsRefused() {
        Path root = directory.resolve("held");
        AtomicReference<Throwable> second = new AtomicReference<>();
        UringRunner.builder().workers(1).storage(root).build().start(ctx -> {
            // Another runner, from a plain thread, while this one holds the root.
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    UringRunner.builder().workers(1).storage(root).build().start(inner -> null);
                } catch (Throwable refused) {
                    second.set(refused);
                }
            });
            other.join();
            return null;
        });
        StorageHeldException held = assertInstanceOf(StorageHeldException.class, second.get());
        assertTrue(held.getMessage().contains(root.toString()), held.getMessage());
    }

    @Test
    void ringOfOneCarriesManyConcurrentRequestsAndTimers() {
        Path root = directory.resolve("ring-of-one");
        int total = UringRunner.builder().workers(1).ringEntries(1).storage(root).build().start(ctx -> {
            Blob blob = ctx.open("p", "b").await().blob();
            try (blob) {
                java.util.List<dev.lockstep.Operation<Void>> writes = new java.util.ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    writes.add(blob.writeAt(i * 4L, new byte[] {(byte) i, 1, 2, 3}));
                }
                // A sleep fires although 200 writes queue behind the one ring slot.
                ctx.sleep(Duration.ofMillis(1));
                for (dev.lockstep.Operation<Void> write : writes) {
                    write.await();
                }
                blob.sync().await();
                byte[] all = blob.readAt(0, 800).await();
                int sum = 0;
                for (int i = 0; i < 200; i++) {
                    assertEquals((byte) i, all[i * 4]);
                    sum++;
                }
                return sum;
            }
        });
        assertEquals(200, total);
    }
}
