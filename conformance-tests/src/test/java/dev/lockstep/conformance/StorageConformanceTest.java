package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BlobMissingException;
import dev.lockstep.BlobNotRegularFileException;
import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.PartitionNameInvalidException;
import dev.lockstep.ReadOptions;
import dev.lockstep.StorageHeldException;
import dev.lockstep.Turns;
import dev.lockstep.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Storage on every runtime: the 33 checks of commonware's {@code storage::tests::run_storage_tests} (reference
 * §5), numbered in order in each case's comment, and the storage cases of {@code lib.rs}
 * ({@code test_storage_operations}, {@code test_blob_read_write}, {@code test_blob_resize},
 * {@code test_many_partition_read_write}, {@code test_blob_read_past_length},
 * {@code test_blob_clone_and_concurrent_read}).
 *
 * <p>Checks without a form in Lockstep's API, not ported: 26 version mismatch ({@code open_versioned}; Lockstep
 * blobs have no application version), 27 aligned layout (the blob header is not part of the API: Lockstep's
 * logical offsets are file offsets). Checks 29–31, {@code read_at_buf} into caller buffers, are
 * {@link BufferConformanceTest}'s ({@code Blob.readInto}). Check 14's "both read APIs" is {@code readAt} with
 * and without options.
 */
@Group(ReadmeGroup.STORAGE_SEED)
class StorageConformanceTest {

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] random(long seed, int length) {
        byte[] data = new byte[length];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < length; i++) {
            data[i] = (byte) random.nextInt(256);
        }
        return data;
    }

    static List<String> names(List<byte[]> raw) {
        return raw.stream().map(StorageConformanceTest::text).toList();
    }

    static Blob open(Context ctx, String partition, String name) {
        return ctx.open(partition, name).await().blob();
    }

    /** The length a fresh open of the blob reports; the open is closed again, so the run holds nothing. */
    private static long lengthOf(Context ctx, String partition, String name) {
        OpenedBlob opened = ctx.open(partition, name).await();
        opened.blob().close();
        return opened.length();
    }

    // ------------------------------------------------------------------------------ run_storage_tests

    /** Check 1, open and write: a new blob is empty; written bytes read back; reopening sees the length. */
    @Conformance
    void testOpenAndWrite(Runtimes rt) {
        rt.runner().start(ctx -> {
            OpenedBlob opened = ctx.open("partition", "blob").await();
            assertEquals(0, opened.length());
            try (Blob blob = opened.blob()) {
                blob.writeAt(0, bytes("hello world")).await();
                assertArrayEquals(bytes("hello world"), blob.readAt(0, 11).await());
                assertEquals(11, blob.length());
                blob.sync().await();
            }
            OpenedBlob again = ctx.open("partition", "blob").await();
            assertEquals(11, again.length());
            assertArrayEquals(bytes("world"), again.blob().readAt(6, 5).await());
            again.blob().close();
            return null;
        });
    }

    /** Check 2, remove: a removed blob leaves the scan; a removed partition is missing; nothing left fails. */
    @Conformance
    void testRemove(Runtimes rt) {
        rt.runner().start(ctx -> {
            open(ctx, "partition", "a").close();
            open(ctx, "partition", "b").close();
            ctx.remove("partition", bytes("a")).await();
            assertEquals(List.of("b"), names(ctx.scan("partition").await()));
            assertThrows(BlobMissingException.class, () -> ctx.remove("partition", bytes("a")).await());
            ctx.remove("partition", null).await();
            assertThrows(PartitionMissingException.class, () -> ctx.scan("partition").await());
            assertThrows(PartitionMissingException.class, () -> ctx.remove("partition", null).await());
            return null;
        });
    }

    /** Check 3, read after remove by name: an open handle stays readable after its blob is removed. */
    @Conformance
    void testReadAfterRemoveByName(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob blob = open(ctx, "partition", "blob");
            blob.writeAt(0, bytes("kept")).await();
            blob.sync().await();
            ctx.remove("partition", bytes("blob")).await();
            assertEquals(List.of(), names(ctx.scan("partition").await()));
            assertArrayEquals(bytes("kept"), blob.readAt(0, 4).await());
            blob.close();
            return null;
        });
    }

    /** Check 4, read after removing the whole partition. */
    @Conformance
    void testReadAfterRemovePartition(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob blob = open(ctx, "partition", "blob");
            blob.writeAt(0, bytes("kept")).await();
            blob.sync().await();
            ctx.remove("partition", null).await();
            assertThrows(PartitionMissingException.class, () -> ctx.scan("partition").await());
            assertArrayEquals(bytes("kept"), blob.readAt(0, 4).await());
            blob.close();
            return null;
        });
    }

    /** Check 5, read after remove of unsynced data: unsynced bytes stay readable through the open handle. */
    @Conformance
    void testReadAfterRemoveUnsynced(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob blob = open(ctx, "partition", "blob");
            blob.writeAt(0, bytes("unsynced")).await();
            ctx.remove("partition", bytes("blob")).await();
            assertArrayEquals(bytes("unsynced"), blob.readAt(0, 8).await());
            blob.close();
            return null;
        });
    }

    /**
     * Check 6, read after remove through handle clones: Lockstep has no blob clone; several opens of one blob
     * are its form (each an independent fd). Every one stays readable.
     */
    @Conformance
    void testReadAfterRemoveHandleClones(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob first = open(ctx, "partition", "blob");
            first.writeAt(0, bytes("shared")).await();
            first.sync().await();
            Blob second = open(ctx, "partition", "blob");
            Blob third = open(ctx, "partition", "blob");
            ctx.remove("partition", bytes("blob")).await();
            for (Blob blob : List.of(first, second, third)) {
                assertArrayEquals(bytes("shared"), blob.readAt(0, 6).await());
            }
            first.close();
            assertArrayEquals(bytes("shared"), second.readAt(0, 6).await());
            second.close();
            third.close();
            return null;
        });
    }

    /** Check 7, generations: after remove and recreate, the old handle reads the old data, the new the new. */
    @Conformance
    void testReadAfterRemoveGenerations(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob old = open(ctx, "partition", "blob");
            old.writeAt(0, bytes("generation one")).await();
            ctx.remove("partition", bytes("blob")).await();
            OpenedBlob fresh = ctx.open("partition", "blob").await();
            assertEquals(0, fresh.length());
            fresh.blob().writeAt(0, bytes("gen two")).await();
            assertArrayEquals(bytes("generation one"), old.readAt(0, 14).await());
            assertArrayEquals(bytes("gen two"), fresh.blob().readAt(0, 7).await());
            old.close();
            fresh.blob().close();
            return null;
        });
    }

    /** Check 8, read after removing a partition of several blobs: each handle stays readable. */
    @Conformance
    void testReadAfterRemoveMultiBlobPartition(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<Blob> blobs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Blob blob = open(ctx, "partition", "blob" + i);
                blob.writeAt(0, bytes("data" + i)).await();
                blobs.add(blob);
            }
            ctx.remove("partition", null).await();
            for (int i = 0; i < 5; i++) {
                assertArrayEquals(bytes("data" + i), blobs.get(i).readAt(0, 5).await());
                blobs.get(i).close();
            }
            return null;
        });
    }

    /** Check 9, recreate after remove: the new blob is empty and independent of writes through the old handle. */
    @Conformance
    void testRecreateAfterRemoveIsIndependent(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob old = open(ctx, "partition", "blob");
            old.writeAt(0, bytes("old")).await();
            ctx.remove("partition", bytes("blob")).await();
            Blob fresh = open(ctx, "partition", "blob");
            old.writeAt(3, bytes(" and more")).await();
            assertEquals(0, fresh.length());
            assertThrows(BlobInsufficientLengthException.class, () -> fresh.readAt(0, 1).await());
            fresh.writeAt(0, bytes("new")).await();
            assertArrayEquals(bytes("old and more"), old.readAt(0, 12).await());
            old.close();
            fresh.close();
            assertEquals(3, lengthOf(ctx, "partition", "blob"));
            return null;
        });
    }

    /** Check 10, scan: every blob of a partition, in unsigned byte order, and only that partition's. */
    @Conformance
    void testScan(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (String name : List.of("zeta", "alpha", "mid", "Alpha", "10", "9")) {
                open(ctx, "scanned", name).close();
            }
            byte[] high = {(byte) 0xff, 1};
            byte[] low = {1, (byte) 0xff};
            ctx.open("scanned", high).await().blob().close();
            ctx.open("scanned", low).await().blob().close();
            open(ctx, "other", "elsewhere").close();
            List<byte[]> scanned = ctx.scan("scanned").await();
            assertEquals(8, scanned.size());
            for (int i = 1; i < scanned.size(); i++) {
                assertTrue(Arrays.compareUnsigned(scanned.get(i - 1), scanned.get(i)) < 0,
                        "scan is in unsigned byte order at " + i);
            }
            assertArrayEquals(low, scanned.get(0));
            assertArrayEquals(high, scanned.get(7));
            assertEquals(List.of("10", "9", "Alpha", "alpha", "mid", "zeta"), names(scanned.subList(1, 7)));
            assertEquals(List.of("elsewhere"), names(ctx.scan("other").await()));
            return null;
        });
    }

    /** Check 11, concurrent access: tasks on every worker write and read their own regions of one blob at once. */
    @Conformance
    void testConcurrentAccess(Runtimes rt) {
        rt.runner().start(ctx -> {
            int tasks = 8;
            int region = 4096;
            Blob shared = open(ctx, "partition", "concurrent");
            List<Handle<byte[]>> handles = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                int id = i;
                handles.add(ctx.child("task" + i).spawnOn(i % ctx.workers(), c -> {
                    byte[] data = random(id, region);
                    shared.writeAt((long) id * region, data).await();
                    try (Blob own = c.open("partition", "concurrent").await().blob()) {
                        // Another open reads what this task wrote (the page cache is shared).
                        assertArrayEquals(data, own.readAt((long) id * region, region).await());
                    }
                    return shared.readAt((long) id * region, region).await();
                }));
            }
            for (int i = 0; i < tasks; i++) {
                assertArrayEquals(random(i, region), handles.get(i).await());
            }
            assertEquals((long) tasks * region, shared.length());
            shared.close();
            return null;
        });
    }

    /** Check 12, 10 MB of data written and read back. */
    @Conformance
    void testLargeData(Runtimes rt) {
        byte[] data = random(12, 10 * 1024 * 1024);
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "large")) {
                blob.writeAt(0, data).await();
                blob.sync().await();
                assertArrayEquals(data, blob.readAt(0, data.length).await());
                assertArrayEquals(Arrays.copyOfRange(data, 5_000_000, 5_000_100), blob.readAt(5_000_000, 100).await());
            }
            return null;
        });
    }

    /** Check 13, overwrite: rewriting inside the blob changes the bytes, not the length. */
    @Conformance
    void testOverwrite(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "blob")) {
                blob.writeAt(0, bytes("hello world")).await();
                blob.writeAt(6, bytes("there")).await();
                assertEquals(11, blob.length());
                assertArrayEquals(bytes("hello there"), blob.readAt(0, 11).await());
            }
            return null;
        });
    }

    /** Check 14, reads beyond the end fail, with either read form (plain and with options). */
    @Conformance
    void testReadBeyondBound(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "blob")) {
                blob.writeAt(0, bytes("0123456789")).await();
                for (ReadOptions options : List.of(ReadOptions.NONE, ReadOptions.DONT_CACHE)) {
                    assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(5, 6, options).await());
                    assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(10, 1, options).await());
                    assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(100, 1, options).await());
                    assertArrayEquals(bytes("56789"), blob.readAt(5, 5, options).await());
                }
            }
            return null;
        });
    }

    /** Check 15, a large offset: the gap reads as zeros; offsets whose end overflows are refused at the call. */
    @Conformance
    void testLargeOffset(Runtimes rt) {
        long offset = 16L * 1024 * 1024;
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "blob")) {
                blob.writeAt(offset, bytes("far")).await();
                assertEquals(offset + 3, blob.length());
                assertArrayEquals(bytes("far"), blob.readAt(offset, 3).await());
                assertArrayEquals(new byte[4096], blob.readAt(offset - 4096, 4096).await());
                assertThrows(IllegalArgumentException.class, () -> blob.writeAt(Long.MAX_VALUE - 1, bytes("xyz")));
                assertThrows(IllegalArgumentException.class, () -> blob.readAt(Long.MAX_VALUE, 1));
                assertThrows(IllegalArgumentException.class, () -> blob.readAt(-1, 1));
                assertThrows(IllegalArgumentException.class, () -> blob.readAt(0, -1));
                assertThrows(IllegalArgumentException.class, () -> blob.writeAt(-1, bytes("x")));
                assertThrows(IllegalArgumentException.class, () -> blob.resize(-1));
            }
            return null;
        });
    }

    /**
     * Lengths are checked at the call against {@link Blob#MAX_TRANSFER_BYTES}, the same way on every runtime: a
     * longer read or write is refused with {@code IllegalArgumentException} naming the length (before, a read of
     * {@code Integer.MAX_VALUE} bytes ran out of memory inside the worker on io_uring and threw an internal
     * kernel error in the simulator); a read of exactly the maximum is a normal read; null options are refused
     * at the call, not inside the worker.
     */
    @Conformance
    void testTransferLengthsAreCheckedAtTheCall(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "blob")) {
                blob.writeAt(0, bytes("four")).await();
                IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                        () -> blob.readAt(0, Integer.MAX_VALUE));
                assertTrue(huge.getMessage().contains(Integer.toString(Integer.MAX_VALUE)), huge.getMessage());
                IllegalArgumentException justOver = assertThrows(IllegalArgumentException.class,
                        () -> blob.readAt(0, Blob.MAX_TRANSFER_BYTES + 1));
                assertTrue(justOver.getMessage().contains(Integer.toString(Blob.MAX_TRANSFER_BYTES + 1)),
                        justOver.getMessage());
                byte[] tooMuch = new byte[Blob.MAX_TRANSFER_BYTES / 2 + 1];
                IllegalArgumentException write = assertThrows(IllegalArgumentException.class,
                        () -> blob.writeAt(0, new byte[][] {tooMuch, tooMuch}, WriteOptions.NONE));
                assertTrue(write.getMessage().contains(Long.toString(2L * tooMuch.length)), write.getMessage());
                assertThrows(NullPointerException.class, () -> blob.writeAt(0, new byte[][] {bytes("x")}, null));
                assertThrows(NullPointerException.class, () -> blob.readAt(0, 1, null));
                // Exactly the maximum is a read like any other: this blob is shorter, so it fails typed.
                assertThrows(BlobInsufficientLengthException.class,
                        () -> blob.readAt(0, Blob.MAX_TRANSFER_BYTES).await());
                assertEquals(4, blob.length(), "nothing was written by the refused calls");
                assertArrayEquals(bytes("four"), blob.readAt(0, 4).await());
            }
            return null;
        });
    }

    /** Check 16, write_at with SYNC: the written bytes are durable when it completes (they survive a restart). */
    @Conformance
    void testWriteAtSync(Runtimes rt) {
        byte[] after = rt.restartBetween(ctx -> {
            try (Blob blob = open(ctx, "partition", "blob")) {
                blob.writeAt(0, new byte[][] {bytes("durable")}, WriteOptions.SYNC).await();
            }
            return null;
        }, ctx -> {
            OpenedBlob opened = ctx.open("partition", "blob").await();
            try (Blob blob = opened.blob()) {
                return blob.readAt(0, (int) opened.length()).await();
            }
        });
        assertArrayEquals(bytes("durable"), after);
    }

    /** Check 17, an empty SYNC write (and an empty plain one) changes nothing and does not extend the blob. */
    @Conformance
    void testEmptySyncWriteDoesNotExtend(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "blob")) {
                blob.writeAt(0, bytes("abc")).await();
                assertNull(blob.writeAt(100, new byte[][] {}, WriteOptions.SYNC).await());
                assertNull(blob.writeAt(50, new byte[][] {new byte[0]}, WriteOptions.SYNC).await());
                assertNull(blob.writeAt(10, new byte[0]).await());
                assertEquals(3, blob.length());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(3, 1).await());
            }
            assertEquals(3, lengthOf(ctx, "partition", "blob"));
            return null;
        });
    }

    /** Check 18, startSync persists: awaiting its handle makes the data durable; the handle may also be dropped. */
    @Conformance
    void testStartSyncPersists(Runtimes rt) {
        List<String> after = rt.restartBetween(ctx -> {
            try (Blob blob = open(ctx, "partition", "awaited")) {
                blob.writeAt(0, bytes("awaited")).await();
                assertNull(blob.startSync().await());
            }
            Blob dropped = open(ctx, "partition", "dropped");
            dropped.writeAt(0, bytes("dropped")).await();
            dropped.startSync().close();
            // The sync runs although nobody awaits it; a later sync of the same open serializes behind it.
            dropped.sync().await();
            dropped.close();
            return null;
        }, ctx -> {
            List<String> seen = new ArrayList<>();
            for (String name : List.of("awaited", "dropped")) {
                OpenedBlob opened = ctx.open("partition", name).await();
                seen.add(text(opened.blob().readAt(0, (int) opened.length()).await()));
                opened.blob().close();
            }
            return seen;
        });
        assertEquals(List.of("awaited", "dropped"), after);
    }

    /** Check 19, append: writes at the end grow the blob. */
    @Conformance
    void testAppend(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "log")) {
                StringBuilder expected = new StringBuilder();
                for (int i = 0; i < 50; i++) {
                    String record = "record-" + i + ";";
                    blob.writeAt(blob.length(), bytes(record)).await();
                    expected.append(record);
                }
                assertEquals(expected.length(), blob.length());
                assertEquals(expected.toString(), text(blob.readAt(0, expected.length()).await()));
            }
            return null;
        });
    }

    /** Check 19 (vectored), a write of more than 1,024 chunks lands contiguously, in order. */
    @Conformance
    void testVectoredWrite(Runtimes rt) {
        int chunks = 1500;
        byte[][] parts = new byte[chunks][];
        byte[] expected = new byte[chunks * 3];
        for (int i = 0; i < chunks; i++) {
            parts[i] = new byte[] {(byte) i, (byte) (i >> 8), (byte) 0x5a};
            System.arraycopy(parts[i], 0, expected, i * 3, 3);
        }
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "vectored")) {
                blob.writeAt(7, parts, WriteOptions.NONE).await();
                assertEquals(7 + expected.length, blob.length());
                assertArrayEquals(expected, blob.readAt(7, expected.length).await());
                assertArrayEquals(new byte[7], blob.readAt(0, 7).await());
            }
            return null;
        });
    }

    /** Check 20, a vectored write at a large offset: the gap before it reads as zeros. */
    @Conformance
    void testVectoredWriteAtLargeOffsetZeroFillsGap(Runtimes rt) {
        long offset = 1L << 20;
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "gap")) {
                blob.writeAt(0, bytes("head")).await();
                blob.writeAt(offset, new byte[][] {bytes("a"), new byte[0], bytes("bc"), bytes("def")},
                        WriteOptions.NONE).await();
                assertEquals(offset + 6, blob.length());
                assertArrayEquals(bytes("abcdef"), blob.readAt(offset, 6).await());
                byte[] gap = blob.readAt(4, (int) offset - 4).await();
                assertArrayEquals(new byte[(int) offset - 4], gap);
            }
            return null;
        });
    }

    /** Check 21, sequential and chunked I/O: written in one chunk size, read back in others. */
    @Conformance
    void testSequentialChunkedIo(Runtimes rt) {
        byte[] data = random(21, 100_000);
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "chunked")) {
                for (int at = 0; at < data.length; at += 4096) {
                    int length = Math.min(4096, data.length - at);
                    blob.writeAt(at, Arrays.copyOfRange(data, at, at + length)).await();
                }
                for (int size : new int[] {1000, 4096, 7777}) {
                    byte[] read = new byte[data.length];
                    for (int at = 0; at < data.length; at += size) {
                        int length = Math.min(size, data.length - at);
                        System.arraycopy(blob.readAt(at, length).await(), 0, read, at, length);
                    }
                    assertArrayEquals(data, read, "read in chunks of " + size);
                }
            }
            return null;
        });
    }

    /** Check 22, reading an empty blob fails. */
    @Conformance
    void testEmptyBlobReadErrors(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "empty")) {
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 1).await());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 4096).await());
            }
            return null;
        });
    }

    /** Check 23, overlapping writes: the later write wins where they overlap. */
    @Conformance
    void testOverlappingWrites(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "overlap")) {
                blob.writeAt(0, bytes("aaaaaaaaaa")).await();
                blob.writeAt(3, bytes("bbbb")).await();
                blob.writeAt(5, bytes("cccccccc")).await();
                assertEquals(13, blob.length());
                assertEquals("aaabbcccccccc", text(blob.readAt(0, 13).await()));
            }
            return null;
        });
    }

    /** Check 24, resize then open: extension reads as zeros, truncation shortens, and reopening sees both. */
    @Conformance
    void testResizeThenOpen(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "resized")) {
                blob.writeAt(0, bytes("data")).await();
                blob.resize(4096).await();
                blob.sync().await();
                assertEquals(4096, blob.length());
            }
            OpenedBlob extended = ctx.open("partition", "resized").await();
            assertEquals(4096, extended.length());
            assertArrayEquals(bytes("data"), extended.blob().readAt(0, 4).await());
            assertArrayEquals(new byte[4092], extended.blob().readAt(4, 4092).await());
            extended.blob().resize(2).await();
            extended.blob().sync().await();
            extended.blob().close();
            OpenedBlob truncated = ctx.open("partition", "resized").await();
            assertEquals(2, truncated.length());
            assertArrayEquals(bytes("da"), truncated.blob().readAt(0, 2).await());
            assertThrows(BlobInsufficientLengthException.class, () -> truncated.blob().readAt(0, 3).await());
            truncated.blob().close();
            return null;
        });
    }

    /** Check 25, valid partition names: open, scan and remove accept them. */
    @Conformance
    void testValidPartitionNames(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (String partition : List.of("partition", "my_partition", "my-partition", "partition123", "A1")) {
                open(ctx, partition, "blob").close();
                assertEquals(List.of("blob"), names(ctx.scan(partition).await()), partition);
                ctx.remove(partition, null).await();
            }
            return null;
        });
    }

    /** Check 25 (invalid), invalid partition names are refused at the call by open, remove and scan. */
    @Conformance
    void testInvalidPartitionNames(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (String partition : List.of("my/partition", "my.partition", "my partition", "../escape", "")) {
                assertThrows(PartitionNameInvalidException.class, () -> ctx.open(partition, "blob"), partition);
                assertThrows(PartitionNameInvalidException.class, () -> ctx.remove(partition, null), partition);
                assertThrows(PartitionNameInvalidException.class, () -> ctx.scan(partition), partition);
            }
            assertThrows(IllegalArgumentException.class, () -> ctx.open("partition", new byte[0]));
            return null;
        });
    }

    /** Check 28, zero-length reads are always satisfied, at any offset, on empty and non-empty blobs. */
    @Conformance
    void testZeroLengthReads(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "zero")) {
                assertEquals(0, blob.readAt(0, 0).await().length);
                assertEquals(0, blob.readAt(100, 0).await().length);
                blob.writeAt(0, bytes("abc")).await();
                assertEquals(0, blob.readAt(0, 0).await().length);
                assertEquals(0, blob.readAt(3, 0).await().length);
                assertEquals(0, blob.readAt(1000, 0, ReadOptions.DONT_CACHE).await().length);
            }
            return null;
        });
    }

    /** Check 32, read options never change what a read returns. */
    @Conformance
    void testReadOptionsDoNotChangeResults(Runtimes rt) {
        byte[] data = random(32, 20_000);
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "options")) {
                blob.writeAt(0, new byte[][] {data}, WriteOptions.DONT_CACHE).await();
                for (int[] range : new int[][] {{0, 20_000}, {1, 4095}, {4096, 4096}, {19_999, 1}}) {
                    assertArrayEquals(blob.readAt(range[0], range[1], ReadOptions.NONE).await(),
                            blob.readAt(range[0], range[1], ReadOptions.DONT_CACHE).await());
                }
                assertArrayEquals(data, blob.readAt(0, data.length, ReadOptions.DONT_CACHE).await());
            }
            return null;
        });
    }

    // ----------------------------------------------------------------------------- lib.rs storage cases

    /** {@code test_storage_operations}. */
    @Group(ReadmeGroup.STORAGE_LIB)
    @Conformance
    void testStorageOperations(Runtimes rt) {
        rt.runner().start(ctx -> {
            OpenedBlob opened = ctx.open("partition", "test_blob").await();
            assertEquals(0, opened.length());
            Blob blob = opened.blob();
            blob.writeAt(0, bytes("Hello, Storage!")).await();
            blob.sync().await();
            assertArrayEquals(bytes("Hello, Storage!"), blob.readAt(0, 15).await());
            assertTrue(names(ctx.scan("partition").await()).contains("test_blob"));
            blob.close();
            OpenedBlob reopened = ctx.open("partition", "test_blob").await();
            assertEquals(15, reopened.length());
            assertArrayEquals(bytes("Storage!"), reopened.blob().readAt(7, 8).await());
            reopened.blob().close();
            ctx.remove("partition", bytes("test_blob")).await();
            assertFalse(names(ctx.scan("partition").await()).contains("test_blob"));
            ctx.remove("partition", null).await();
            assertThrows(PartitionMissingException.class, () -> ctx.scan("partition").await());
            return null;
        });
    }

    /** {@code test_blob_read_write}. */
    @Group(ReadmeGroup.STORAGE_LIB)
    @Conformance
    void testBlobReadWrite(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "test_blob")) {
                blob.writeAt(0, bytes("Hello, ")).await();
                blob.writeAt(7, bytes("world!")).await();
                assertEquals("Hello, world!", text(blob.readAt(0, 13).await()));
                blob.writeAt(7, bytes("Earth!")).await();
                assertEquals(13, blob.length());
                assertEquals("Hello, Earth!", text(blob.readAt(0, 13).await()));
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 20).await());
            }
            return null;
        });
    }

    /** {@code test_blob_resize}: extend, sync, reopen; truncate, sync, reopen. */
    @Group(ReadmeGroup.STORAGE_LIB)
    @Conformance
    void testBlobResize(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob blob = open(ctx, "partition", "test_blob");
            blob.writeAt(0, bytes("hello world")).await();
            blob.resize(20).await();
            blob.sync().await();
            blob.close();
            OpenedBlob extended = ctx.open("partition", "test_blob").await();
            assertEquals(20, extended.length());
            assertArrayEquals(new byte[9], extended.blob().readAt(11, 9).await());
            extended.blob().resize(5).await();
            extended.blob().sync().await();
            extended.blob().close();
            OpenedBlob truncated = ctx.open("partition", "test_blob").await();
            assertEquals(5, truncated.length());
            assertEquals("hello", text(truncated.blob().readAt(0, 5).await()));
            truncated.blob().close();
            return null;
        });
    }

    /** {@code test_many_partition_read_write}: the same blob name in three partitions stays independent. */
    @Group(ReadmeGroup.STORAGE_LIB)
    @Conformance
    void testManyPartitionReadWrite(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<String> partitions = List.of("partition1", "partition2", "partition3");
            for (int i = 0; i < partitions.size(); i++) {
                try (Blob blob = open(ctx, partitions.get(i), "test_blob")) {
                    blob.writeAt(0, bytes("data-" + "x".repeat(i + 1))).await();
                    blob.sync().await();
                }
            }
            for (int i = 0; i < partitions.size(); i++) {
                OpenedBlob opened = ctx.open(partitions.get(i), "test_blob").await();
                assertEquals(6 + i, opened.length());
                assertEquals("data-" + "x".repeat(i + 1), text(opened.blob().readAt(0, 6 + i).await()));
                opened.blob().close();
            }
            return null;
        });
    }

    /** {@code test_blob_read_past_length}: beyond the length of an empty and of a non-empty blob. */
    @Group(ReadmeGroup.STORAGE_LIB)
    @Conformance
    void testBlobReadPastLength(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "test_blob")) {
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 10).await());
                blob.writeAt(0, bytes("hello")).await();
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 10).await());
                assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(3, 3).await());
            }
            return null;
        });
    }

    /**
     * {@code test_blob_clone_and_concurrent_read}: tasks read one blob concurrently; once every open is closed
     * the runtime holds no file of it (Rust checks the {@code open_blobs} metric; here, a closed blob refuses
     * calls and the blob can be removed and recreated empty).
     */
    @Group(ReadmeGroup.STORAGE_LIB)
    @Conformance
    void testBlobCloneAndConcurrentRead(Runtimes rt) {
        rt.runner().start(ctx -> {
            Blob blob = open(ctx, "partition", "test_blob");
            byte[] data = random(5, 8192);
            blob.writeAt(0, data).await();
            blob.sync().await();
            List<Handle<byte[]>> readers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                readers.add(ctx.child("reader" + i).spawnOn(i % ctx.workers(), c -> blob.readAt(0, data.length).await()));
            }
            for (Handle<byte[]> reader : readers) {
                assertArrayEquals(data, reader.await());
            }
            blob.close();
            blob.close();
            assertThrows(ClosedException.class, () -> blob.readAt(0, 1));
            assertThrows(ClosedException.class, () -> blob.writeAt(0, data));
            assertThrows(ClosedException.class, blob::sync);
            ctx.remove("partition", bytes("test_blob")).await();
            assertEquals(0, lengthOf(ctx, "partition", "test_blob"));
            return null;
        });
    }

    // ------------------------------------------------------------------------------- Lockstep's own promises

    /**
     * Blob names are byte strings of 1 to 127 bytes (Storage's contract): the longest and ones with any byte
     * open, scan and remove like short ones; one byte more is refused at the call; partition names up to 255.
     */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testLongAndBinaryNames(Runtimes rt) {
        rt.runner().start(ctx -> {
            byte[] binary = {0, '/', '.', '.', (byte) 0xff, '\n'};
            // 127 bytes is the longest name every runtime stores (its hex must fit one 255-byte file name).
            byte[] longest = new byte[127];
            java.util.Arrays.fill(longest, (byte) 'n');
            for (byte[] name : List.of(binary, longest)) {
                OpenedBlob opened = ctx.open("names", name).await();
                opened.blob().writeAt(0, name).await();
                opened.blob().close();
                try (Blob reopened = ctx.open("names", name).await().blob()) {
                    assertArrayEquals(name, reopened.readAt(0, name.length).await());
                }
            }
            List<byte[]> scanned = ctx.scan("names").await();
            assertEquals(2, scanned.size());
            assertArrayEquals(binary, scanned.get(0));
            assertArrayEquals(longest, scanned.get(1));
            ctx.remove("names", longest).await();
            IllegalArgumentException tooLong = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> ctx.open("names", new byte[128]));
            org.junit.jupiter.api.Assertions.assertTrue(tooLong.getMessage().contains("128"), tooLong.getMessage());
            String longestPartition = "p".repeat(255);
            open(ctx, longestPartition, "blob").close();
            assertEquals(List.of("blob"), names(ctx.scan(longestPartition).await()));
            dev.lockstep.PartitionNameInvalidException badPartition = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.lockstep.PartitionNameInvalidException.class, () -> ctx.scan("p".repeat(256)));
            org.junit.jupiter.api.Assertions.assertTrue(badPartition.getMessage().contains("256"),
                    badPartition.getMessage());
            return null;
        });
    }

    /** The blob's size is not bounded by 2 GiB: a write at 3 GiB makes a sparse blob that reads back. */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testWriteBeyondTwoGibibytes(Runtimes rt) {
        long offset = 3L << 30;
        rt.runner().start(ctx -> {
            try (Blob blob = open(ctx, "partition", "sparse")) {
                blob.writeAt(offset, bytes("far away")).await();
                assertEquals(offset + 8, blob.length());
                assertArrayEquals(bytes("far away"), blob.readAt(offset, 8).await());
                assertArrayEquals(new byte[16], blob.readAt(offset - 16, 16).await());
            }
            ctx.remove("partition", bytes("sparse")).await();
            return null;
        });
    }

    /** A storage directory is held by one runtime at a time: a second one is refused clearly (runtime-uring). */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testStorageIsHeldByOneRuntime(Runtimes rt) {
        if (rt.isSim()) {
            // The simulator's disk belongs to its runner alone: there is no second runtime to refuse.
            return;
        }
        Path directory = rt.freshDirectory();
        rt.runnerOn(directory).start(ctx -> {
            StorageHeldException held = assertThrows(StorageHeldException.class,
                    () -> Turns.onPlainThread(ctx, () -> rt.runnerOn(directory).start(c -> null)));
            assertTrue(held.getMessage().contains(directory.getFileName().toString()), held.getMessage());
            return null;
        });
        assertEquals(1, (int) rt.runnerOn(directory).start(ctx -> 1), "the hold is released with its runtime");
    }

    /**
     * A FIFO an operator put at a blob's path is refused by the open, naming the path and its type, and left as it
     * was (runtime-uring): it would open like a file, and its first write would fail with {@code ESPIPE}.
     */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testOpenRefusesAFileThatIsNotRegular(Runtimes rt) throws Exception {
        if (rt.isSim()) {
            // The simulator's disk holds only what its runs create, regular files and directories: nothing can put
            // a FIFO there. Its statx reports every file regular, and the open's check is the engine's, shared.
            return;
        }
        Path directory = rt.freshDirectory();
        Path partition = partitionWithASegment(rt, directory);
        // The blob "pipe" is the file named by its bytes in hex.
        Path fifo = partition.resolve("70697065");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo " + fifo);
        rt.runnerOn(directory).start(ctx -> {
            BlobNotRegularFileException refused = assertThrows(BlobNotRegularFileException.class,
                    () -> ctx.open("partition", "pipe").await());
            assertTrue(refused.getMessage().contains("'" + fifo + "' is a FIFO, not a regular file"),
                    refused.getMessage());
            assertThrows(BlobNotRegularFileException.class,
                    () -> ctx.open("partition", "pipe", OpenOptions.OPEN_EXISTING).await(), "with any options");
            try (Blob blob = open(ctx, "partition", "segment-1")) {
                blob.writeAt(0, bytes("still usable")).await();
            }
            return null;
        });
        assertTrue(java.nio.file.Files.readAttributes(fifo, java.nio.file.attribute.BasicFileAttributes.class).isOther(),
                "the FIFO is left as it was");
    }

    /**
     * A directory an operator put at a blob's path is refused by the open, naming the path and its type, with any
     * options, and left as it was (runtime-uring): the open itself fails there, with {@code EISDIR}.
     */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testOpenRefusesADirectoryAtTheBlobsPath(Runtimes rt) throws Exception {
        if (rt.isSim()) {
            // The simulator's disk holds only what its runs create: a directory there is a partition, never at a
            // blob's path. Its open answers EISDIR for a directory opened for writing, as Linux does, and the
            // mapping of that answer is the engine's, shared.
            return;
        }
        Path directory = rt.freshDirectory();
        Path partition = partitionWithASegment(rt, directory);
        // The blob "dir" is the file named by its bytes in hex.
        Path inTheWay = java.nio.file.Files.createDirectory(partition.resolve("646972"));
        assertRefusedAsNotRegular(rt, directory, "dir", inTheWay, "a directory");
        assertTrue(java.nio.file.Files.isDirectory(inTheWay), "the directory is left as it was");
    }

    /**
     * A Unix socket bound at a blob's path is refused by the open, naming the path, with any options, and left as
     * it was (runtime-uring): the open itself fails there, with {@code ENXIO}.
     */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testOpenRefusesASocketAtTheBlobsPath(Runtimes rt) throws Exception {
        if (rt.isSim()) {
            // The simulator's disk holds only what its runs create, regular files and directories: nothing can bind
            // a socket there.
            return;
        }
        Path directory = rt.freshDirectory();
        Path partition = partitionWithASegment(rt, directory);
        // The blob "sock" is the file named by its bytes in hex.
        Path socket = partition.resolve("736f636b");
        try (java.nio.channels.ServerSocketChannel server =
                     java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            server.bind(java.net.UnixDomainSocketAddress.of(socket));
            assertRefusedAsNotRegular(rt, directory, "sock", socket,
                    "a socket or a device with no driver (open: ENXIO)");
        }
        assertTrue(java.nio.file.Files.readAttributes(socket, java.nio.file.attribute.BasicFileAttributes.class)
                .isOther(), "the socket is left as it was");
    }

    /** Creates the blob {@code partition/segment-1} and returns the partition's directory on disk. */
    private static Path partitionWithASegment(Runtimes rt, Path directory) {
        rt.runnerOn(directory).start(ctx -> {
            open(ctx, "partition", "segment-1").close();
            return null;
        });
        return directory.resolve("partition");
    }

    /** Opens {@code partition/name} with each of its options, each refused as not a regular file. */
    private static void assertRefusedAsNotRegular(Runtimes rt, Path directory, String name, Path path, String found) {
        rt.runnerOn(directory).start(ctx -> {
            for (OpenOptions options : new OpenOptions[] {OpenOptions.NONE, OpenOptions.OPEN_EXISTING,
                    OpenOptions.DIRECT}) {
                BlobNotRegularFileException refused = assertThrows(BlobNotRegularFileException.class,
                        () -> ctx.open("partition", name, options).await(), options.toString());
                assertTrue(refused.getMessage().contains("'" + path + "' is " + found + ", not a regular file"),
                        refused.getMessage());
            }
            assertThrows(dev.lockstep.BlobExistsException.class,
                    () -> ctx.open("partition", name, OpenOptions.CREATE_NEW).await(), "the name is taken");
            try (Blob blob = open(ctx, "partition", "segment-1")) {
                blob.writeAt(0, bytes("still usable")).await();
            }
            return null;
        });
    }

    /** Unsynced writes may be lost by a crash, synced ones never (the simulator's crash; a restart on uring). */
    @Group(ReadmeGroup.STORAGE_OWN)
    @Conformance
    void testSyncedDataSurvivesARestart(Runtimes rt) {
        List<Long> lengths = rt.restartBetween(ctx -> {
            try (Blob synced = open(ctx, "partition", "synced"); Blob unsynced = open(ctx, "partition", "unsynced")) {
                synced.writeAt(0, bytes("synced")).await();
                synced.sync().await();
                synced.writeAt(6, bytes("-tail")).await();
                unsynced.writeAt(0, bytes("maybe")).await();
            }
            return null;
        }, ctx -> {
            OpenedBlob synced = ctx.open("partition", "synced").await();
            OpenedBlob unsynced = ctx.open("partition", "unsynced").await();
            assertEquals("synced", text(synced.blob().readAt(0, 6).await()));
            synced.blob().close();
            unsynced.blob().close();
            return List.of(synced.length(), unsynced.length());
        });
        if (rt.isSim()) {
            assertEquals(List.of(6L, 0L), lengths, "ALL_LOST: exactly what was synced survives");
        } else {
            assertTrue(lengths.get(0) >= 6);
        }
    }
}
