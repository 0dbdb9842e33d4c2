package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BlobMissingException;
import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.PartitionNameInvalidException;
import dev.lockstep.ReadOptions;
import dev.lockstep.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code Storage} and {@code Blob} call of the production runner against the real kernel (ext4 under the
 * test's temporary directory), beyond the round trip of {@link UringRunnerTest}: reads past the end, resizes
 * both ways, removal while open, reopening after a sync, the {@code SYNC} write path, scan order, bad input.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // hang guard only
class UringStorageCallsTest {
    @TempDir
    Path directory;

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Where the runtime keeps a blob: {@code ROOT/partition/hex(name)}. */
    static Path blobFile(Path root, String partition, byte[] name) {
        return root.resolve(partition).resolve(HexFormat.of().formatHex(name));
    }

    private static byte[] pattern(int length, int seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void readsThatEndPastTheEndFailAndReadsInsideSucceed() {
        Path root = directory.resolve("store");
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, utf8("0123456789")).await();
                assertArrayEquals(utf8("789"), blob.readAt(7, 3).await(), "a read ending exactly at the end");
                assertArrayEquals(new byte[0], blob.readAt(10, 0).await(), "an empty read at the end");
                assertArrayEquals(new byte[0], blob.readAt(1_000, 0).await(), "an empty read is always satisfied");
                BlobInsufficientLengthException straddling = assertThrows(BlobInsufficientLengthException.class,
                        () -> blob.readAt(8, 3).await());
                assertTrue(straddling.getMessage().contains("'p/b'"),
                        straddling.getMessage());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(10, 1).await());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(1L << 40, 1).await());
                // A failed read changes nothing.
                assertEquals(10, blob.length());
                assertArrayEquals(utf8("0123456789"), blob.readAt(0, 10).await());
            }
            return null;
        });
    }

    @Test
    void aWriteBeyondTheEndExtendsWithZerosAndResizeWorksBothWays() throws Exception {
        Path root = directory.resolve("store");
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(4, utf8("xy")).await();
                assertEquals(6, blob.length());
                assertArrayEquals(new byte[] {0, 0, 0, 0, 'x', 'y'}, blob.readAt(0, 6).await());

                blob.resize(4096).await();
                assertEquals(4096, blob.length());
                byte[] grown = blob.readAt(0, 4096).await();
                assertArrayEquals(new byte[] {0, 0, 0, 0, 'x', 'y'}, Arrays.copyOf(grown, 6));
                assertArrayEquals(new byte[4090], Arrays.copyOfRange(grown, 6, 4096), "growth reads as zeros");

                blob.resize(5).await();
                assertEquals(5, blob.length());
                assertArrayEquals(new byte[] {0, 0, 0, 0, 'x'}, blob.readAt(0, 5).await());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(4, 2).await());

                // Shrinking cut the old bytes: growing again must not bring them back.
                blob.resize(6).await();
                assertArrayEquals(new byte[] {0, 0, 0, 0, 'x', 0}, blob.readAt(0, 6).await());
                blob.resize(0).await();
                assertEquals(0, blob.length());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 1).await());
                blob.writeAt(0, utf8("z")).await();
                blob.sync().await();
            }
            return null;
        });
        assertEquals(1, Files.size(blobFile(root, "p", utf8("b"))), "the file on disk has the blob's length");
    }

    @Test
    void aReopenedBlobHasTheLengthAndBytesOfItsSyncedWritesInTheSameAndInANewRuntime() {
        Path root = directory.resolve("store");
        byte[] big = pattern(1 << 20, 1);
        UringRunner.builder().workers(2).ringEntries(8).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("log", "one").await().blob()) {
                // A megabyte written from worker 1 through a blob opened on worker 0.
                ctx.child("writer").spawnOn(1, c -> {
                    blob.writeAt(0, big).await();
                    blob.sync().await();
                    return null;
                }).await();
                assertEquals(big.length, blob.length());
            }
            try (Blob other = ctx.open("log2", new byte[] {0, '/', '.', '.'}).await().blob()) {
                other.writeAt(0, utf8("second partition")).await();
                other.sync().await();
            }
            OpenedBlob again = ctx.open("log", "one").await();
            try (Blob blob = again.blob()) {
                assertEquals(big.length, again.length(), "a reopen reports the length");
                assertArrayEquals(big, blob.readAt(0, big.length).await());
            }
            return null;
        });
        UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            OpenedBlob one = ctx.open("log", "one").await();
            OpenedBlob two = ctx.open("log2", new byte[] {0, '/', '.', '.'}).await();
            try (Blob blob = one.blob(); Blob other = two.blob()) {
                assertEquals(big.length, one.length());
                assertEquals(16, two.length());
                assertArrayEquals(big, blob.readAt(0, big.length).await());
                assertArrayEquals(utf8("second partition"), other.readAt(0, 16).await());
            }
            return null;
        });
    }

    @Test
    void theSyncWritePathWritesDurablyAndAnEmptySyncWriteDoesNotExtend() throws Exception {
        Path root = directory.resolve("store");
        Path file = blobFile(root, "p", utf8("s"));
        UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "s").await().blob()) {
                blob.writeAt(0, new byte[][] {utf8("ab"), utf8(""), utf8("cd")}, WriteOptions.SYNC).await();
                assertEquals(4, blob.length());
                // The bytes are in the file as soon as the write completed.
                assertArrayEquals(utf8("abcd"), Files.readAllBytes(file));

                blob.writeAt(100, new byte[][] {}, WriteOptions.SYNC).await();
                blob.writeAt(200, new byte[][] {new byte[0], new byte[0]}, WriteOptions.SYNC).await();
                blob.writeAt(300, new byte[0]).await();
                assertEquals(4, blob.length(), "empty writes, SYNC or not, do not extend");
                assertEquals(4, Files.size(file));

                blob.writeAt(6, new byte[][] {utf8("ef")}, WriteOptions.SYNC.with(WriteOptions.DONT_CACHE)).await();
                assertEquals(8, blob.length());
                assertArrayEquals(new byte[] {'a', 'b', 'c', 'd', 0, 0, 'e', 'f'}, blob.readAt(0, 8).await());
                // A sync with nothing written since completes too, and startSync's handle completes like sync.
                blob.sync().await();
                blob.startSync().await();
                Operation<Void> dropped = blob.startSync();
                dropped.close();
            }
            return null;
        });
        assertArrayEquals(new byte[] {'a', 'b', 'c', 'd', 0, 0, 'e', 'f'}, Files.readAllBytes(file));
    }

    @Test
    void readAndWriteHintsNeverChangeTheResult() {
        Path root = directory.resolve("store");
        byte[] data = pattern(64 * 1024, 2);
        byte[] read = UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "hints").await().blob()) {
                blob.writeAt(0, new byte[][] {data}, WriteOptions.DONT_CACHE).await();
                blob.sync().await();
                return blob.readAt(0, data.length, ReadOptions.DONT_CACHE).await();
            }
        });
        assertArrayEquals(data, read);
    }

    @Test
    void aBlobRemovedWhileOpenStaysReadableAndItsNameOpensANewEmptyBlob() throws Exception {
        Path root = directory.resolve("store");
        byte[] name = utf8("victim");
        UringRunner.builder().workers(1).ringEntries(4).storage(root).build().start(ctx -> {
            Blob old = ctx.open("p", name).await().blob();
            old.writeAt(0, utf8("synced")).await();
            old.sync().await();
            old.writeAt(6, utf8("+cached")).await();

            ctx.remove("p", name).await();
            assertFalse(Files.exists(blobFile(root, "p", name)), "remove is done when it completes");
            assertEquals(List.of(), ctx.scan("p").await());
            // The open handle still reads everything, unsynced bytes included, and still writes and syncs.
            assertArrayEquals(utf8("synced+cached"), old.readAt(0, 13).await());
            old.writeAt(13, utf8("!")).await();
            old.sync().await();

            OpenedBlob fresh = ctx.open("p", name).await();
            assertEquals(0, fresh.length(), "re-opening a removed name creates a new blob");
            try (Blob blob = fresh.blob()) {
                blob.writeAt(0, utf8("new")).await();
                assertArrayEquals(utf8("synced+cached!"), old.readAt(0, 14).await(), "the two are independent");
                assertArrayEquals(utf8("new"), blob.readAt(0, 3).await());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 4).await());
                blob.sync().await();
            }
            old.close();
            return null;
        });
        assertArrayEquals(utf8("new"), Files.readAllBytes(blobFile(root, "p", name)));
    }

    @Test
    void removingWhatIsMissingFailsTypedAndRemovingAPartitionRemovesItsBlobs() throws Exception {
        Path root = directory.resolve("store");
        UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            PartitionMissingException noPartition = assertThrows(PartitionMissingException.class,
                    () -> ctx.remove("ghost", utf8("x")).await());
            assertTrue(noPartition.getMessage().contains("ghost"), noPartition.getMessage());
            assertThrows(PartitionMissingException.class, () -> ctx.remove("ghost", null).await());
            assertThrows(PartitionMissingException.class, () -> ctx.scan("ghost").await());

            for (String blob : List.of("a", "b", "c")) {
                try (Blob opened = ctx.open("doomed", blob).await().blob()) {
                    opened.writeAt(0, utf8(blob)).await();
                }
            }
            BlobMissingException noBlob = assertThrows(BlobMissingException.class,
                    () -> ctx.remove("doomed", utf8("zz")).await());
            assertTrue(noBlob.getMessage().contains("doomed/zz"), noBlob.getMessage());
            ctx.remove("doomed", utf8("b")).await();
            assertThrows(BlobMissingException.class, () -> ctx.remove("doomed", utf8("b")).await());
            assertEquals(2, ctx.scan("doomed").await().size());

            ctx.remove("doomed", null).await();
            assertThrows(PartitionMissingException.class, () -> ctx.scan("doomed").await());
            assertThrows(PartitionMissingException.class, () -> ctx.remove("doomed", null).await());
            // The partition comes back, empty, on the next open.
            try (Blob again = ctx.open("doomed", "a").await().blob()) {
                assertEquals(0, again.length());
            }
            return null;
        });
        try (var files = Files.list(root.resolve("doomed"))) {
            assertEquals(List.of("61"), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void scanListsNamesInUnsignedByteOrderAndIgnoresForeignFiles() throws Exception {
        Path root = directory.resolve("store");
        List<byte[]> names = List.of(new byte[] {(byte) 0xff}, utf8("b"), new byte[] {(byte) 0x80}, utf8("ab"),
                new byte[] {0}, utf8("a"), new byte[] {0x7f}, new byte[] {1, 2}, new byte[] {(byte) 0xff, 0});
        List<byte[]> expected = List.of(new byte[] {0}, new byte[] {1, 2}, utf8("a"), utf8("ab"), utf8("b"),
                new byte[] {0x7f}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xff}, new byte[] {(byte) 0xff, 0});
        List<byte[]> scanned = UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            for (byte[] name : names) {
                ctx.open("p", name).await().blob().close();
            }
            // Something that is not a blob of ours: an editor's backup left in the partition.
            Files.writeString(root.resolve("p").resolve("notes.txt~"), "not a blob");
            return ctx.scan("p").await();
        });
        assertEquals(expected.size(), scanned.size());
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), scanned.get(i), "name " + i);
        }
    }

    @Test
    void badArgumentsAreRejectedAtTheCallNamingTheValue() {
        Path root = directory.resolve("store");
        UringRunner.builder().workers(1).ringEntries(2).storage(root).build().start(ctx -> {
            for (String partition : List.of("", "a/b", "..", "white space", "dot.dot")) {
                PartitionNameInvalidException invalid = assertThrows(PartitionNameInvalidException.class,
                        () -> ctx.open(partition, "x"));
                assertTrue(invalid.getMessage().contains("'" + partition + "'"), invalid.getMessage());
                assertThrows(PartitionNameInvalidException.class, () -> ctx.scan(partition));
                assertThrows(PartitionNameInvalidException.class, () -> ctx.remove(partition, null));
            }
            assertThrows(IllegalArgumentException.class, () -> ctx.open("p", new byte[0]));
            Blob blob = ctx.open("p", "b").await().blob();
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                    () -> blob.readAt(-1, 1));
            assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
            assertThrows(IllegalArgumentException.class, () -> blob.readAt(0, -5));
            assertThrows(IllegalArgumentException.class, () -> blob.readAt(Long.MAX_VALUE, 2));
            assertThrows(IllegalArgumentException.class, () -> blob.writeAt(-3, utf8("x")));
            assertThrows(IllegalArgumentException.class, () -> blob.writeAt(Long.MAX_VALUE, utf8("xy")));
            assertThrows(IllegalArgumentException.class, () -> blob.resize(-1));
            assertEquals(0, blob.length(), "rejected calls change nothing");
            blob.close();
            blob.close();
            assertThrows(ClosedException.class, () -> blob.readAt(0, 1));
            assertThrows(ClosedException.class, () -> blob.writeAt(0, utf8("x")));
            assertThrows(ClosedException.class, blob::sync);
            assertThrows(ClosedException.class, () -> blob.resize(1));
            return null;
        });
    }

    @Test
    void writesAndReadsFromEveryWorkerThroughOneOpenMeetInTheFile() {
        Path root = directory.resolve("store");
        int workers = 3;
        int perWorker = 50;
        int record = 512;
        UringRunner.builder().workers(workers).ringEntries(4).storage(root).build().start(ctx -> {
            try (Blob blob = ctx.open("p", "shared").await().blob()) {
                List<Handle<Void>> writers = new ArrayList<>();
                for (int w = 0; w < workers; w++) {
                    int worker = w;
                    writers.add(ctx.child("writer" + w).spawnOn(worker, c -> {
                        List<Operation<Void>> writes = new ArrayList<>();
                        for (int i = 0; i < perWorker; i++) {
                            int slot = i * workers + worker;
                            writes.add(blob.writeAt((long) slot * record, pattern(record, slot)));
                        }
                        for (Operation<Void> write : writes) {
                            write.await();
                        }
                        blob.sync().await();
                        return null;
                    }));
                }
                for (Handle<Void> writer : writers) {
                    writer.await();
                }
                assertEquals((long) workers * perWorker * record, blob.length());
                for (int w = 0; w < workers; w++) {
                    int worker = w;
                    ctx.child("reader" + w).spawnOn(worker, c -> {
                        for (int slot = 0; slot < workers * perWorker; slot++) {
                            assertArrayEquals(pattern(record, slot), blob.readAt((long) slot * record, record).await(),
                                    "record " + slot + " read on worker " + worker);
                        }
                        return null;
                    }).await();
                }
            }
            return null;
        });
    }
}
