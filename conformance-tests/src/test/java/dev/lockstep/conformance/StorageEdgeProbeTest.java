package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.BufferPool;
import dev.lockstep.Context;
import dev.lockstep.IoBuffer;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.ReadOptions;
import dev.lockstep.Turns;
import dev.lockstep.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Edge cases of the storage API, probed side by side on every runtime: each probe's outcome is recorded as
 * "ok" (with a short value) or the exception's simple name plus whether its message names the bad value, and
 * the whole table must be the one the javadoc promises, the same on the simulator and on runtime-uring.
 */
@Group(ReadmeGroup.STORAGE_PROBES)
class StorageEdgeProbeTest {

    /** The largest file ext4 (4 KiB blocks) holds: 2^32 - 1 blocks, 16 TiB less one block (s_maxbytes). */
    static final long EXT4_MAX_BYTES = (16L << 40) - 4096;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A call's outcome: ok[value], or the exception's simple name, "+named" when its message has {@code value}. */
    static String outcome(String value, Callable<?> call) {
        try {
            Object result = call.call();
            if (result instanceof Operation<?> operation) {
                result = operation.await();
            }
            if (result instanceof byte[] array) {
                result = "len=" + array.length;
            }
            return "ok" + (result == null ? "" : "[" + result + "]");
        } catch (Throwable failure) {
            String message = String.valueOf(failure.getMessage());
            return failure.getClass().getSimpleName()
                    + (value == null ? "" : message.contains(value) ? "+named" : " UNNAMED(" + message + ")");
        }
    }

    static void record(Map<String, String> table, String probe, String value, Callable<?> call) {
        table.put(probe, outcome(value, call));
    }

    // ----------------------------------------------------------------------------------------------- names

    @Conformance
    void probeNames(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            record(t, "open empty byte[] name", "empty", () -> ctx.open("p", new byte[0]));
            record(t, "open empty String name", "empty", () -> ctx.open("p", ""));
            record(t, "open null name", "null", () -> ctx.open("p", (byte[]) null));
            record(t, "open 128-byte name", "128", () -> ctx.open("p", new byte[128]));
            record(t, "open 300-byte name", "300", () -> ctx.open("p", "n".repeat(300)));
            record(t, "open null options", null, () -> ctx.open("p", bytes("b"), null));
            for (String partition : Arrays.asList(null, "", ".", "..", "a/b", "a\0b", "\u00e9", " ", "p".repeat(256))) {
                String shown = partition == null ? "null" : partition.length() > 255 ? "256" : partition;
                record(t, "open partition '" + shown + "'", shown, () -> ctx.open(partition, "b"));
                record(t, "scan partition '" + shown + "'", shown, () -> ctx.scan(partition));
                record(t, "remove partition '" + shown + "'", shown, () -> ctx.remove(partition, null));
            }
            record(t, "remove empty name", "empty", () -> ctx.remove("p", new byte[0]));
            record(t, "remove 128-byte name", "128", () -> ctx.remove("p", new byte[128]));
            record(t, "scan missing partition", "nowhere", () -> ctx.scan("nowhere"));
            record(t, "remove blob of missing partition", "nowhere", () -> ctx.remove("nowhere", bytes("b")));
            record(t, "remove missing partition", "nowhere", () -> ctx.remove("nowhere", null));
            List<byte[]> odd = List.of(bytes("/"), bytes(".."), bytes("."), new byte[] {0}, bytes("a/../b"),
                    "x".repeat(127).getBytes(StandardCharsets.UTF_8));
            for (byte[] name : odd) {
                record(t, "open name " + Arrays.toString(Arrays.copyOf(name, Math.min(6, name.length))), null, () -> {
                    try (Blob blob = ctx.open("odd", name).await().blob()) {
                        blob.writeAt(0, name).await();
                    }
                    try (Blob blob = ctx.open("odd", name).await().blob()) {
                        return Arrays.equals(name, blob.readAt(0, name.length).await());
                    }
                });
            }
            record(t, "scan odd names", null, () -> ctx.scan("odd").await().size());
            record(t, "remove missing blob", "gone", () -> ctx.remove("odd", bytes("gone")));
            record(t, "remove name '..'", null, () -> ctx.remove("odd", bytes("..")));
            record(t, "scan after remove", null, () -> ctx.scan("odd").await().size());
            record(t, "remove partition", null, () -> ctx.remove("odd", null));
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("open empty byte[] name", "IllegalArgumentException+named");
        expected.put("open empty String name", "IllegalArgumentException+named");
        expected.put("open null name", "IllegalArgumentException+named");
        expected.put("open 128-byte name", "IllegalArgumentException+named");
        expected.put("open 300-byte name", "IllegalArgumentException+named");
        expected.put("open null options", "NullPointerException");
        for (String shown : List.of("null", "", ".", "..", "a/b", "a\0b", "\u00e9", " ", "256")) {
            for (String call : List.of("open", "scan", "remove")) {
                expected.put(call + " partition '" + shown + "'", "PartitionNameInvalidException+named");
            }
        }
        expected.put("remove empty name", "IllegalArgumentException+named");
        expected.put("remove 128-byte name", "IllegalArgumentException+named");
        expected.put("scan missing partition", "PartitionMissingException+named");
        expected.put("remove blob of missing partition", actual.get("remove blob of missing partition"));
        expected.put("remove missing partition", "PartitionMissingException+named");
        for (String key : actual.keySet()) {
            if (key.startsWith("open name ")) {
                expected.put(key, "ok[true]");
            }
        }
        expected.put("scan odd names", "ok[6]");
        expected.put("remove missing blob", "BlobMissingException+named");
        expected.put("remove name '..'", "ok");
        expected.put("scan after remove", "ok[5]");
        expected.put("remove partition", "ok");
        ProbeTables.assertTable(rt, expected, actual);
        String missing = actual.get("remove blob of missing partition");
        assertTrue(missing.equals("PartitionMissingException+named") || missing.equals("BlobMissingException+named"),
                missing);
    }

    // ------------------------------------------------------------------------------------- offsets, lengths

    @Conformance
    void probeOffsetsAndLengths(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, bytes("01234567")).await();
                record(t, "readAt(-1, 1)", "-1", () -> blob.readAt(-1, 1));
                record(t, "readAt(-1, 0)", "-1", () -> blob.readAt(-1, 0));
                record(t, "readAt(0, -5)", "-5", () -> blob.readAt(0, -5));
                record(t, "readAt(MAX, 1)", Long.toString(Long.MAX_VALUE), () -> blob.readAt(Long.MAX_VALUE, 1));
                record(t, "readAt(MAX, 0)", null, () -> blob.readAt(Long.MAX_VALUE, 0));
                record(t, "readAt(MAX-1, 1)", Long.toString(Long.MAX_VALUE - 1),
                        () -> blob.readAt(Long.MAX_VALUE - 1, 1));
                record(t, "readAt(MAX-1, 1) DONT_CACHE", Long.toString(Long.MAX_VALUE - 1),
                        () -> blob.readAt(Long.MAX_VALUE - 1, 1, ReadOptions.DONT_CACHE));
                record(t, "readAt(5, 10) past end", "5", () -> blob.readAt(5, 10));
                record(t, "readAt(8, 1) at end", "8", () -> blob.readAt(8, 1));
                record(t, "readAt(8, 0) at end", null, () -> blob.readAt(8, 0));
                record(t, "readAt(1000, 0) past end", null, () -> blob.readAt(1000, 0));
                record(t, "writeAt(-1)", "-1", () -> blob.writeAt(-1, bytes("x")));
                record(t, "writeAt(MAX, 1 byte)", Long.toString(Long.MAX_VALUE), () -> blob.writeAt(Long.MAX_VALUE,
                        bytes("x")));
                record(t, "writeAt(MAX, empty)", null, () -> blob.writeAt(Long.MAX_VALUE, new byte[0]));
                record(t, "writeAt(MAX-10, 5 bytes)", Long.toString(Long.MAX_VALUE - 10),
                        () -> blob.writeAt(Long.MAX_VALUE - 10, bytes("abcde")));
                record(t, "writeAt(0, null chunk)", null, () -> blob.writeAt(0, new byte[][] {null},
                        WriteOptions.NONE));
                record(t, "writeAt(0, no chunks)", null, () -> blob.writeAt(0, new byte[0][], WriteOptions.SYNC));
                record(t, "length after refused writes", null, blob::length);
                record(t, "resize(-1)", "-1", () -> blob.resize(-1));
                record(t, "resize(MIN)", Long.toString(Long.MIN_VALUE), () -> blob.resize(Long.MIN_VALUE));
                record(t, "resize(MAX)", Long.toString(Long.MAX_VALUE), () -> blob.resize(Long.MAX_VALUE));
                record(t, "length after resize(MAX)", null, blob::length);
                record(t, "resize(0)", null, () -> blob.resize(0));
                record(t, "readAt(0, 1) after resize(0)", "0", () -> blob.readAt(0, 1));
                record(t, "resize(5)", null, () -> blob.resize(5));
                record(t, "readAt(0,5) zeros", null, () -> Arrays.equals(new byte[5], blob.readAt(0, 5).await()));
                record(t, "sync", null, blob::sync);
            }
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        String iae = "IllegalArgumentException+named";
        expected.put("readAt(-1, 1)", iae);
        expected.put("readAt(-1, 0)", iae);
        expected.put("readAt(0, -5)", iae);
        expected.put("readAt(MAX, 1)", iae);
        expected.put("readAt(MAX, 0)", "ok[len=0]");
        expected.put("readAt(MAX-1, 1)", "BlobInsufficientLengthException+named");
        expected.put("readAt(MAX-1, 1) DONT_CACHE", "BlobInsufficientLengthException+named");
        expected.put("readAt(5, 10) past end", "BlobInsufficientLengthException+named");
        expected.put("readAt(8, 1) at end", "BlobInsufficientLengthException+named");
        expected.put("readAt(8, 0) at end", "ok[len=0]");
        expected.put("readAt(1000, 0) past end", "ok[len=0]");
        expected.put("writeAt(-1)", iae);
        expected.put("writeAt(MAX, 1 byte)", iae);
        expected.put("writeAt(MAX, empty)", "ok");
        // Linux: pwrite past s_maxbytes is EFBIG.
        expected.put("writeAt(MAX-10, 5 bytes)", "StorageIoException+named");
        expected.put("writeAt(0, null chunk)", "NullPointerException");
        expected.put("writeAt(0, no chunks)", "ok");
        expected.put("length after refused writes", "ok[8]");
        expected.put("resize(-1)", iae);
        expected.put("resize(MIN)", iae);
        expected.put("resize(MAX)", "StorageIoException+named");
        expected.put("length after resize(MAX)", "ok[8]");
        expected.put("resize(0)", "ok");
        expected.put("readAt(0, 1) after resize(0)", "BlobInsufficientLengthException+named");
        expected.put("resize(5)", "ok");
        expected.put("readAt(0,5) zeros", "ok[true]");
        expected.put("sync", "ok");
        ProbeTables.assertTable(rt, expected, actual);
    }

    /**
     * The largest file: ext4 with 4 KiB blocks (runtime-uring's storage here, and what the simulator models)
     * holds 2^32 - 1 blocks, 16 TiB less 4 KiB. One byte at the last offset Linux allows is fine; at 16 TiB
     * less 4 KiB the write is refused with EFBIG, and so is a resize to one byte more than the limit.
     */
    @Conformance
    void probeLargestFile(Runtimes rt) throws java.io.IOException {
        if (!rt.isSim()) {
            // On Linux the limit is the file system's: the table is ext4's with 4 KiB blocks, what the simulator
            // models. A temporary directory elsewhere (tmpfs, XFS) has another limit, so the real run is skipped.
            java.nio.file.FileStore store = java.nio.file.Files.getFileStore(
                    java.nio.file.Path.of(System.getProperty("java.io.tmpdir")));
            org.junit.jupiter.api.Assumptions.assumeTrue(store.type().equals("ext4") && store.getBlockSize() == 4096,
                    "the temporary directory is on " + store.type() + " with " + store.getBlockSize()
                    + "-byte blocks, not ext4 with 4 KiB ones");
        }
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            try (Blob blob = ctx.open("p", "huge").await().blob()) {
                record(t, "resize(limit)", null, () -> blob.resize(EXT4_MAX_BYTES));
                record(t, "resize(limit + 1)", Long.toString(EXT4_MAX_BYTES + 1),
                        () -> blob.resize(EXT4_MAX_BYTES + 1));
                record(t, "resize(16 TiB)", Long.toString(16L << 40), () -> blob.resize(16L << 40));
                record(t, "length", null, blob::length);
                record(t, "writeAt(limit - 1, 1 byte)", null, () -> blob.writeAt(EXT4_MAX_BYTES - 1, bytes("x")));
                record(t, "writeAt(limit, 1 byte)", Long.toString(EXT4_MAX_BYTES),
                        () -> blob.writeAt(EXT4_MAX_BYTES, bytes("x")));
                record(t, "readAt(limit - 1, 1)", null,
                        () -> new String(blob.readAt(EXT4_MAX_BYTES - 1, 1).await(), StandardCharsets.UTF_8));
                record(t, "resize(0)", null, () -> blob.resize(0));
                // Crossing the limit: Linux writes up to it, then refuses the rest with EFBIG.
                record(t, "writeAt(limit - 4096, 8192 bytes)", Long.toString(EXT4_MAX_BYTES - 4096),
                        () -> blob.writeAt(EXT4_MAX_BYTES - 4096, new byte[8192]));
                record(t, "length after the cut write", null, blob::length);
                record(t, "resize(0) again", null, () -> blob.resize(0));
            }
            ctx.remove("p", bytes("huge")).await();
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("resize(limit)", "ok");
        expected.put("resize(limit + 1)", "StorageIoException+named");
        expected.put("resize(16 TiB)", "StorageIoException+named");
        expected.put("length", "ok[" + EXT4_MAX_BYTES + "]");
        expected.put("writeAt(limit - 1, 1 byte)", "ok");
        expected.put("writeAt(limit, 1 byte)", "StorageIoException+named");
        expected.put("readAt(limit - 1, 1)", "ok[x]");
        expected.put("resize(0)", "ok");
        expected.put("writeAt(limit - 4096, 8192 bytes)", "StorageIoException+named");
        expected.put("length after the cut write", "ok[" + EXT4_MAX_BYTES + "]");
        expected.put("resize(0) again", "ok");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // ------------------------------------------------------------------------------------------- buffers

    @Conformance
    void probeBuffers(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            BufferPool pool = ctx.buffers();
            try (Blob blob = ctx.open("p", "buf").await().blob()) {
                blob.writeAt(0, bytes("01234567")).await();
                IoBuffer buffer = pool.allocate(4096);
                record(t, "readInto at=-1", "-1", () -> blob.readInto(0, buffer, -1, 1));
                record(t, "readInto len=4097", "4097", () -> blob.readInto(0, buffer, 0, 4097));
                record(t, "readInto at=MAXINT len=1", Integer.toString(Integer.MAX_VALUE),
                        () -> blob.readInto(0, buffer, Integer.MAX_VALUE, 1));
                record(t, "readInto at=4096 len=1", "4096", () -> blob.readInto(0, buffer, 4096, 1));
                record(t, "readInto at=4096 len=0", null, () -> blob.readInto(0, buffer, 4096, 0));
                record(t, "readInto offset=-1", "-1", () -> blob.readInto(-1, buffer, 0, 1));
                record(t, "readInto len=-1", "-1", () -> blob.readInto(0, buffer, 0, -1));
                record(t, "readInto null", null, () -> blob.readInto(0, null, 0, 1));
                record(t, "readFully at=-1", "-1", () -> {
                    blob.readFully(0, buffer, -1, 1);
                    return null;
                });
                record(t, "readFully len=4097", "4097", () -> {
                    blob.readFully(0, buffer, 0, 4097);
                    return null;
                });
                record(t, "readFully offset=MAX", Long.toString(Long.MAX_VALUE), () -> {
                    blob.readFully(Long.MAX_VALUE, buffer, 0, 1);
                    return null;
                });
                record(t, "readFully past end", "4", () -> {
                    blob.readFully(4, buffer, 0, 10);
                    return null;
                });
                record(t, "segment after failed readFully", null, () -> buffer.segment().byteSize());
                record(t, "writeFrom at=-1", "-1", () -> blob.writeFrom(0, buffer, -1, 1));
                record(t, "writeFrom len=4097", "4097", () -> blob.writeFrom(0, buffer, 0, 4097));
                record(t, "writeFrom offset=-1", "-1", () -> blob.writeFrom(-1, buffer, 0, 1));
                record(t, "writeFrom offset=MAX-1 len=2", Long.toString(Long.MAX_VALUE - 1),
                        () -> blob.writeFrom(Long.MAX_VALUE - 1, buffer, 0, 2));
                record(t, "writeFrom null options", null, () -> blob.writeFrom(0, buffer, 0, 1, null));
                record(t, "writeFully at=4000 len=200", "4000", () -> {
                    blob.writeFully(0, buffer, 4000, 200);
                    return null;
                });
                record(t, "writeFully offset=MAX-10 (EFBIG)", Long.toString(Long.MAX_VALUE - 10), () -> {
                    blob.writeFully(Long.MAX_VALUE - 10, buffer, 0, 5);
                    return null;
                });
                record(t, "segment after failed writeFully", null, () -> buffer.segment().byteSize());
                record(t, "length", null, blob::length);
                // In flight: a second call with the buffer is refused.
                // A write is never answered at the call (a read may be, from the page cache).
                Operation<Void> pending = blob.writeFrom(100, buffer, 0, 8);
                record(t, "readFully of in-flight buffer", "in flight", () -> {
                    blob.readFully(0, buffer, 0, 1);
                    return null;
                });
                record(t, "writeFully of in-flight buffer", "in flight", () -> {
                    blob.writeFully(0, buffer, 0, 1);
                    return null;
                });
                pending.await();
                pending.close();
                buffer.close();
                record(t, "readFully released", "released", () -> {
                    blob.readFully(0, buffer, 0, 1);
                    return null;
                });
                record(t, "writeFully released", "released", () -> {
                    blob.writeFully(0, buffer, 0, 1);
                    return null;
                });
                record(t, "writeFrom released len=0", "released", () -> blob.writeFrom(0, buffer, 0, 0));
                if (ctx.workers() > 1) {
                    IoBuffer foreign = ctx.child("alloc").spawnOn(1, c -> c.buffers().allocate(4096)).await();
                    record(t, "readFully foreign", "worker 1", () -> {
                        blob.readFully(0, foreign, 0, 1);
                        return null;
                    });
                    record(t, "writeFully foreign", "worker 1", () -> {
                        blob.writeFully(0, foreign, 0, 1);
                        return null;
                    });
                    ctx.child("free").spawnOn(1, c -> {
                        foreign.close();
                        return null;
                    }).await();
                }
            }
            record(t, "outstanding", null, pool::outstanding);
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        String iae = "IllegalArgumentException+named";
        expected.put("readInto at=-1", iae);
        expected.put("readInto len=4097", iae);
        expected.put("readInto at=MAXINT len=1", iae);
        expected.put("readInto at=4096 len=1", iae);
        expected.put("readInto at=4096 len=0", "ok");
        expected.put("readInto offset=-1", iae);
        expected.put("readInto len=-1", iae);
        expected.put("readInto null", "NullPointerException");
        expected.put("readFully at=-1", iae);
        expected.put("readFully len=4097", iae);
        expected.put("readFully offset=MAX", iae);
        expected.put("readFully past end", "BlobInsufficientLengthException+named");
        expected.put("segment after failed readFully", "ok[4096]");
        expected.put("writeFrom at=-1", iae);
        expected.put("writeFrom len=4097", iae);
        expected.put("writeFrom offset=-1", iae);
        expected.put("writeFrom offset=MAX-1 len=2", iae);
        expected.put("writeFrom null options", "NullPointerException");
        expected.put("writeFully at=4000 len=200", iae);
        expected.put("writeFully offset=MAX-10 (EFBIG)", "StorageIoException+named");
        expected.put("segment after failed writeFully", "ok[4096]");
        expected.put("length", "ok[8]");
        expected.put("readFully of in-flight buffer", "IllegalStateException+named");
        expected.put("writeFully of in-flight buffer", "IllegalStateException+named");
        expected.put("readFully released", "ClosedException+named");
        expected.put("writeFully released", "ClosedException+named");
        expected.put("writeFrom released len=0", "ClosedException+named");
        if (rt.workers() > 1) {
            expected.put("readFully foreign", iae);
            expected.put("writeFully foreign", iae);
        }
        expected.put("outstanding", "ok[0]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // ------------------------------------------------------------------------------------ close, remove, fds

    @Conformance
    void probeClosing(Runtimes rt) {
        Probe probe = rt.probe();
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            Set<Integer> before = probe.openFds(ctx);
            Blob blob = ctx.open("p", "c").await().blob();
            blob.writeAt(0, bytes("01234567")).await();
            IoBuffer buffer = ctx.buffers().allocate(4096);
            blob.close();
            record(t, "close again", null, () -> {
                blob.close();
                return null;
            });
            record(t, "readAt after close", "c", () -> blob.readAt(0, 1));
            record(t, "readAt(-1) after close", "-1", () -> blob.readAt(-1, 1));
            record(t, "readAt len 0 after close", "c", () -> blob.readAt(0, 0));
            record(t, "writeAt after close", "c", () -> blob.writeAt(0, bytes("x")));
            record(t, "writeAt empty after close", "c", () -> blob.writeAt(0, new byte[0]));
            record(t, "readInto after close", "c", () -> blob.readInto(0, buffer, 0, 1));
            record(t, "writeFrom after close", "c", () -> blob.writeFrom(0, buffer, 0, 1));
            record(t, "readFully after close", "c", () -> {
                blob.readFully(0, buffer, 0, 1);
                return null;
            });
            record(t, "writeFully after close", "c", () -> {
                blob.writeFully(0, buffer, 0, 1);
                return null;
            });
            record(t, "resize after close", "c", () -> blob.resize(1));
            record(t, "sync after close", "c", blob::sync);
            record(t, "startSync after close", "c", blob::startSync);
            record(t, "length after close", null, blob::length);
            record(t, "segment after refused calls", null, () -> buffer.segment().byteSize());
            buffer.close();

            // Closing while operations are in flight: writes and syncs finish first.
            Blob busy = ctx.open("p", "busy").await().blob();
            Operation<Void> write = busy.writeAt(0, bytes("in flight"));
            Operation<Void> sync = busy.sync();
            Operation<byte[]> read = busy.readAt(0, 0);
            busy.close();
            record(t, "write in flight at close", null, () -> write);
            record(t, "sync in flight at close", null, () -> sync);
            record(t, "read in flight at close", null, () -> read);
            record(t, "written bytes after reopen", null, () -> {
                try (Blob again = ctx.open("p", "busy").await().blob()) {
                    return new String(again.readAt(0, 9).await(), StandardCharsets.UTF_8);
                }
            });
            Blob reader = ctx.open("p", "busy").await().blob();
            Operation<byte[]> pendingRead = reader.readAt(0, 9, ReadOptions.DONT_CACHE);
            reader.close();
            record(t, "read in flight at close (DONT_CACHE)", null,
                    () -> new String(pendingRead.await(), StandardCharsets.UTF_8));

            // Sync after remove; two opens of one blob.
            Blob first = ctx.open("p", "twice").await().blob();
            OpenedBlob second = ctx.open("p", "twice").await();
            record(t, "second open length", null, second::length);
            first.writeAt(0, bytes("shared")).await();
            record(t, "read through second open", null,
                    () -> new String(second.blob().readAt(0, 6).await(), StandardCharsets.UTF_8));
            record(t, "second length() after first's write", null, () -> second.blob().length());
            record(t, "remove", null, () -> ctx.remove("p", bytes("twice")));
            record(t, "write after remove", null, () -> first.writeAt(6, bytes("!")));
            record(t, "sync after remove", null, first::sync);
            record(t, "startSync after remove", null, () -> second.blob().startSync());
            record(t, "resize after remove", null, () -> first.resize(2));
            record(t, "scan after remove", null, () -> ctx.scan("p").await().size());
            first.close();
            second.blob().close();
            record(t, "remove partition", null, () -> ctx.remove("p", null));
            record(t, "open after partition removed", null, () -> {
                OpenedBlob opened = ctx.open("p", "new").await();
                opened.blob().close();
                return opened.length();
            });
            ctx.remove("p", null).await();
            // Releases may be deferred to the worker's next turn.
            for (int turn = 0; turn < 1000 && !probe.openFds(ctx).equals(before); turn++) {
                Turns.reschedule();
            }
            Set<Integer> after = new java.util.TreeSet<>(probe.openFds(ctx));
            after.removeAll(before);
            record(t, "fds left open", null, () -> after);
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        String closed = "ClosedException+named";
        expected.put("close again", "ok");
        expected.put("readAt after close", closed);
        expected.put("readAt(-1) after close", actual.get("readAt(-1) after close"));
        expected.put("readAt len 0 after close", closed);
        expected.put("writeAt after close", closed);
        expected.put("writeAt empty after close", closed);
        expected.put("readInto after close", closed);
        expected.put("writeFrom after close", closed);
        expected.put("readFully after close", closed);
        expected.put("writeFully after close", closed);
        expected.put("resize after close", closed);
        expected.put("sync after close", closed);
        expected.put("startSync after close", closed);
        expected.put("length after close", "ok[8]");
        expected.put("segment after refused calls", "ok[4096]");
        expected.put("write in flight at close", "ok");
        expected.put("sync in flight at close", "ok");
        expected.put("read in flight at close", "ok[len=0]");
        expected.put("written bytes after reopen", "ok[in flight]");
        expected.put("read in flight at close (DONT_CACHE)", "ok[in flight]");
        expected.put("second open length", "ok[0]");
        expected.put("read through second open", "ok[shared]");
        expected.put("second length() after first's write", actual.get("second length() after first's write"));
        expected.put("remove", "ok");
        expected.put("write after remove", "ok");
        expected.put("sync after remove", "ok");
        expected.put("startSync after remove", "ok");
        expected.put("resize after remove", "ok");
        expected.put("scan after remove", "ok[2]"); // "c" and "busy" are left
        expected.put("remove partition", "ok");
        expected.put("open after partition removed", "ok[0]");
        expected.put("fds left open", "ok[[]]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // ------------------------------------------------------------------------------------------ direct I/O

    @Conformance
    void probeDirect(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            int alignment;
            try (Blob probe = ctx.open("d", "short", OpenOptions.DIRECT).await().blob()) {
                alignment = probe.directAlignment();
            }
            try (Blob plain = ctx.open("d", "short").await().blob()) {
                plain.writeAt(0, new byte[alignment + 1]).await();
                plain.sync().await();
            }
            OpenedBlob opened = ctx.open("d", "short", OpenOptions.DIRECT).await();
            Blob blob = opened.blob();
            int a = blob.directAlignment();
            t.put("alignment is a power of two >= 512", Boolean.toString(a >= 512 && Integer.bitCount(a) == 1));
            IoBuffer buffer = ctx.buffers().allocate(8192);
            record(t, "readAt(1, a)", "1", () -> blob.readAt(1, a));
            record(t, "readAt(0, 1)", "1", () -> blob.readAt(0, 1));
            record(t, "readAt(0, 0)", null, () -> blob.readAt(0, 0));
            record(t, "readAt(1, 0)", null, () -> blob.readAt(1, 0));
            record(t, "readAt(-1, a)", "-1", () -> blob.readAt(-1, a));
            record(t, "writeAt(0, 1 byte)", "1", () -> blob.writeAt(0, new byte[1]));
            record(t, "writeAt(a/2, a bytes)", Integer.toString(a / 2), () -> blob.writeAt(a / 2, new byte[a]));
            record(t, "readInto at=1", "1", () -> blob.readInto(0, buffer, 1, a));
            record(t, "writeFrom at=a/2", Integer.toString(a / 2), () -> blob.writeFrom(0, buffer, a / 2, a));
            record(t, "readFully at=1", "1", () -> {
                blob.readFully(0, buffer, 1, a);
                return null;
            });
            record(t, "writeFully len=1", "1", () -> {
                blob.writeFully(0, buffer, 0, 1);
                return null;
            });
            record(t, "segment after refusals", null, () -> buffer.segment().byteSize());
            record(t, "readAt(0, a) of a+1 bytes", null, () -> blob.readAt(0, a).await().length == a);
            record(t, "readAt(0, 2a) of a+1 bytes", "0", () -> blob.readAt(0, 2 * a));
            record(t, "readAt(2a, a) past end", Integer.toString(2 * a), () -> blob.readAt(2L * a, a));
            record(t, "readFully(0, 2a) of a+1 bytes", "0", () -> {
                blob.readFully(0, buffer, 0, 2 * a);
                return null;
            });
            record(t, "writeFully(a, a) aligned", null, () -> {
                blob.writeFully(a, buffer, a, a);
                return null;
            });
            record(t, "length", null, () -> blob.length() == 2L * a);
            record(t, "resize(a + 3)", null, () -> blob.resize(a + 3));
            record(t, "sync", null, blob::sync);
            record(t, "writeAt(MAX - a + 1 aligned-down, a)", null,
                    () -> blob.writeAt((Long.MAX_VALUE / a - 1) * a, new byte[a]));
            buffer.close();
            blob.close();
            record(t, "readAt after close", "short", () -> blob.readAt(0, a));
            try (Blob twice = ctx.open("d", "short", OpenOptions.DIRECT).await().blob();
                    Blob plain = ctx.open("d", "short").await().blob()) {
                record(t, "direct and plain open together", null, () -> twice.directAlignment() == a
                        && plain.directAlignment() == 0);
            }
            ctx.remove("d", null).await();
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        String misaligned = "BlobMisalignedException+named";
        expected.put("alignment is a power of two >= 512", "true");
        expected.put("readAt(1, a)", misaligned);
        expected.put("readAt(0, 1)", misaligned);
        expected.put("readAt(0, 0)", "ok[len=0]");
        expected.put("readAt(1, 0)", actual.get("readAt(1, 0)"));
        expected.put("readAt(-1, a)", "IllegalArgumentException+named");
        expected.put("writeAt(0, 1 byte)", misaligned);
        expected.put("writeAt(a/2, a bytes)", misaligned);
        expected.put("readInto at=1", misaligned);
        expected.put("writeFrom at=a/2", misaligned);
        expected.put("readFully at=1", misaligned);
        expected.put("writeFully len=1", misaligned);
        expected.put("segment after refusals", "ok[8192]");
        expected.put("readAt(0, a) of a+1 bytes", "ok[true]");
        expected.put("readAt(0, 2a) of a+1 bytes", "BlobInsufficientLengthException+named");
        expected.put("readAt(2a, a) past end", "BlobInsufficientLengthException+named");
        expected.put("readFully(0, 2a) of a+1 bytes", "BlobInsufficientLengthException+named");
        expected.put("writeFully(a, a) aligned", "ok");
        expected.put("length", "ok[true]");
        expected.put("resize(a + 3)", "ok");
        expected.put("sync", "ok");
        expected.put("writeAt(MAX - a + 1 aligned-down, a)", "StorageIoException");
        expected.put("readAt after close", "ClosedException+named");
        expected.put("direct and plain open together", "ok[true]");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // ---------------------------------------------------------------------------------- off the runtime

    @Conformance
    void probePlainThread(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            try (Blob blob = ctx.open("p", "plain").await().blob()) {
                blob.writeAt(0, bytes("x")).await();
                IoBuffer buffer = ctx.buffers().allocate(4096);
                Map<String, String> off = Turns.onPlainThread(ctx, () -> {
                    Map<String, String> m = new LinkedHashMap<>();
                    record(m, "open on plain thread", "Storage.open", () -> ctx.open("p", "other"));
                    record(m, "scan on plain thread", "Storage.scan", () -> ctx.scan("p"));
                    record(m, "readAt on plain thread", "Blob.readAt", () -> blob.readAt(0, 1));
                    record(m, "readFully on plain thread", "Blob.readInto", () -> {
                        blob.readFully(0, buffer, 0, 1);
                        return null;
                    });
                    record(m, "sync on plain thread", "Blob.sync", blob::sync);
                    record(m, "close on plain thread", null, () -> {
                        blob.close();
                        return null;
                    });
                    return m;
                });
                t.putAll(off);
                buffer.close();
            }
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("open on plain thread", "IllegalStateException+named");
        expected.put("scan on plain thread", "IllegalStateException+named");
        expected.put("readAt on plain thread", "IllegalStateException+named");
        expected.put("readFully on plain thread", "IllegalStateException+named");
        expected.put("sync on plain thread", "IllegalStateException+named");
        expected.put("close on plain thread", "ok");
        ProbeTables.assertTable(rt, expected, actual);
    }

    // ------------------------------------------------------------------------ mixed opens, order, options

    @Conformance
    void probeMixed(Runtimes rt) {
        Map<String, String> actual = rt.runner().start(ctx -> {
            Map<String, String> t = new LinkedHashMap<>();
            try (Blob plain = ctx.open("m", "mix").await().blob();
                    Blob direct = ctx.open("m", "mix", OpenOptions.DIRECT).await().blob()) {
                int a = direct.directAlignment();
                byte[] ones = new byte[a];
                Arrays.fill(ones, (byte) 1);
                byte[] twos = new byte[a];
                Arrays.fill(twos, (byte) 2);
                plain.writeAt(0, ones).await();
                record(t, "direct read sees unsynced plain write", null,
                        () -> Arrays.equals(ones, direct.readAt(0, a).await()));
                record(t, "plain read before direct write", null, () -> plain.readAt(0, a).await()[0]);
                direct.writeAt(0, twos).await();
                record(t, "plain read sees direct write", null,
                        () -> Arrays.equals(twos, plain.readAt(0, a).await()));
                record(t, "plain read (DONT_CACHE) sees direct write", null,
                        () -> Arrays.equals(twos, plain.readAt(0, a, ReadOptions.DONT_CACHE).await()));
                record(t, "direct write past end leaves a gap", null, () -> direct.writeAt(4L * a, twos));
                record(t, "gap reads zeros through plain", null,
                        () -> Arrays.equals(new byte[a], plain.readAt(2L * a, a).await()));
                record(t, "SYNC|DONT_CACHE write", null, () -> plain.writeAt(1, new byte[][] {bytes("ab")},
                        WriteOptions.SYNC.with(WriteOptions.DONT_CACHE)));
                record(t, "direct SYNC write", null, () -> direct.writeAt(0, new byte[][] {twos},
                        WriteOptions.SYNC));
                record(t, "direct resize unaligned", null, () -> direct.resize(a + 7));
                record(t, "direct read across unaligned end", Integer.toString(a),
                        () -> direct.readAt(a, a));
                record(t, "plain length", null, plain::length);
                Operation<Void> sync = plain.sync();
                record(t, "remove during sync", null, () -> ctx.remove("m", bytes("mix")));
                record(t, "sync in flight at remove", null, () -> sync);
            }
            List<byte[]> names = List.of(new byte[] {(byte) 0xff}, new byte[] {(byte) 0x80},
                    new byte[] {0x7f}, new byte[] {(byte) 0xff, 0}, new byte[] {0});
            for (byte[] name : names) {
                ctx.open("order", name).await().blob().close();
            }
            record(t, "scan order", null, () -> ctx.scan("order").await().stream()
                    .map(java.util.HexFormat.of()::formatHex).toList());
            ctx.remove("order", null).await();
            // The same new blob opened from every worker at once.
            List<dev.lockstep.Handle<Long>> opens = new java.util.ArrayList<>();
            for (int w = 0; w < ctx.workers(); w++) {
                for (int i = 0; i < 3; i++) {
                    opens.add(ctx.child("open").spawnOn(w, c -> {
                        OpenedBlob opened = c.open("race", "same").await();
                        opened.blob().writeAt(0, bytes("z")).await();
                        opened.blob().close();
                        return opened.length();
                    }));
                }
            }
            record(t, "concurrent opens", null, () -> {
                long total = 0;
                for (dev.lockstep.Handle<Long> open : opens) {
                    total += open.await();
                }
                return total <= opens.size();
            });
            record(t, "scan after concurrent opens", null, () -> ctx.scan("race").await().size());
            ctx.remove("race", null).await();
            return t;
        });
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("direct read sees unsynced plain write", "ok[true]");
        expected.put("plain read before direct write", "ok[1]");
        expected.put("plain read sees direct write", "ok[true]");
        expected.put("plain read (DONT_CACHE) sees direct write", "ok[true]");
        expected.put("direct write past end leaves a gap", "ok");
        expected.put("gap reads zeros through plain", "ok[true]");
        expected.put("SYNC|DONT_CACHE write", "ok");
        expected.put("direct SYNC write", "ok");
        expected.put("direct resize unaligned", "ok");
        expected.put("direct read across unaligned end", "BlobInsufficientLengthException+named");
        expected.put("plain length", actual.get("plain length"));
        expected.put("remove during sync", "ok");
        expected.put("sync in flight at remove", "ok");
        expected.put("scan order", "ok[[00, 7f, 80, ff, ff00]]");
        expected.put("concurrent opens", "ok[true]");
        expected.put("scan after concurrent opens", "ok[1]");
        ProbeTables.assertTable(rt, expected, actual);
    }
}
