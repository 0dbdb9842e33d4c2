package dev.lockstep.engine.io;

import static dev.lockstep.engine.Support.onPlainThread;
import static dev.lockstep.engine.Support.register;
import static dev.lockstep.engine.Support.serviceUntil;
import static dev.lockstep.engine.Support.turns;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BlobMissingException;
import dev.lockstep.BlobNotRegularFileException;
import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.PartitionNameInvalidException;
import dev.lockstep.ReadOptions;
import dev.lockstep.StorageHeldException;
import dev.lockstep.Waker;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.BoundedWait;
import dev.lockstep.engine.ScriptedKernel;
import dev.lockstep.engine.ScriptedRequest;
import dev.lockstep.engine.Support;
import dev.lockstep.engine.ThreadedRunner;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Opcode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ARCHITECTURE.md §3.7: blobs and partitions over the kernel SPI, against the scripted kernel's in-memory files. */
class StorageEngineTest {
    private static final String ROOT = "/store";
    private final ScriptedKernel kernel = new ScriptedKernel();

    StorageEngineTest() {
        kernel.autoCompleteFiles();
    }

    private ThreadedRunner runner(int ringEntries) {
        return new ThreadedRunner(kernel, 1, ringEntries, ROOT, "storage");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** How messages name a blob opened by this text name: the name itself. */
    private static String hex(String name) {
        return name;
    }

    /**
     * Opens a blob with its metadata — which goes through the ring, its file and directory fsyncs included —
     * completed as the in-memory file system does, whatever the test scripts for the blob's own requests.
     */
    private Blob open(Context ctx, String partition, String name) {
        java.util.function.ToIntFunction<ScriptedKernel.Pending> scripted = kernel.autoCompleteRule();
        kernel.autoCompleteFiles();
        try {
            return ctx.open(partition, name).await().blob();
        } finally {
            kernel.autoComplete(scripted);
        }
    }

    /** A FIFO at a blob's path is refused at the open, naming the path and its type, its fd closed. */
    @Test
    void openRefusesAFileThatIsNotRegular() {
        runner(4).start(ctx -> {
            ctx.open("data", "first").await().blob().close(); // the partition exists
            String path = ROOT + "/data/70697065"; // the name's bytes in hex
            kernel.files.makeFifo(path);
            int openBefore = kernel.files.openCount();
            BlobNotRegularFileException refused = assertThrows(BlobNotRegularFileException.class,
                    () -> ctx.open("data", "pipe").await());
            assertTrue(refused.getMessage().contains("'" + path + "' is a FIFO, not a regular file")
                    && refused.getMessage().contains("'data/pipe'"), refused.getMessage());
            assertEquals(openBefore, kernel.files.openCount(), "the refused open left no fd open");
            return null;
        });
    }

    /**
     * A directory or a socket at a blob's path fails the open itself ({@code EISDIR}, {@code ENXIO}): that is
     * refused as not a regular file too, naming the path and what is there, with any options.
     */
    @Test
    void openRefusesADirectoryOrASocketAtTheBlobsPath() {
        runner(4).start(ctx -> {
            ctx.open("data", "first").await().blob().close(); // the partition exists
            String directory = ROOT + "/data/646972"; // "dir"
            String socket = ROOT + "/data/736f636b"; // "sock"
            kernel.files.mkdir(directory);
            kernel.files.makeSocket(socket);
            int openBefore = kernel.files.openCount();
            for (OpenOptions options : new OpenOptions[] {OpenOptions.NONE, OpenOptions.OPEN_EXISTING}) {
                BlobNotRegularFileException refused = assertThrows(BlobNotRegularFileException.class,
                        () -> ctx.open("data", "dir", options).await());
                assertTrue(refused.getMessage().contains("'" + directory + "' is a directory, not a regular file")
                        && refused.getMessage().contains("'data/dir'"), refused.getMessage());
                refused = assertThrows(BlobNotRegularFileException.class,
                        () -> ctx.open("data", "sock", options).await());
                assertTrue(refused.getMessage().contains("'" + socket + "' is a socket or a device with no driver"),
                        refused.getMessage());
            }
            assertEquals(openBefore, kernel.files.openCount(), "the refused opens left no fd open");
            return null;
        });
    }

    @Test
    void openCreatesAnEmptyBlobAndWritesReadBack() {
        runner(4).start(ctx -> {
            OpenedBlob opened = ctx.open("data", "first").await();
            assertEquals(0, opened.length());
            Blob blob = opened.blob();
            assertEquals(0, blob.length());
            assertNull(blob.writeAt(0, bytes("hello world")).await());
            assertEquals(11, blob.length());
            assertArrayEquals(bytes("hello"), blob.readAt(0, 5).await());
            assertArrayEquals(bytes("world"), blob.readAt(6, 5, ReadOptions.DONT_CACHE).await());
            // Chunks are written contiguously; a gap reads as zeros.
            blob.writeAt(13, new byte[][] {bytes("ab"), bytes("cd")}, WriteOptions.NONE).await();
            assertArrayEquals(new byte[] {'d', 0, 0, 'a', 'b', 'c', 'd'}, blob.readAt(10, 7).await());
            assertEquals(17, blob.length());
            blob.close();

            // Re-opening sees the length and the bytes.
            OpenedBlob again = ctx.open("data", "first").await();
            assertEquals(17, again.length());
            assertArrayEquals(bytes("hello"), again.blob().readAt(0, 5).await());
            again.blob().close();
            return null;
        });
        assertEquals(0, kernel.files.openCount());
    }

    @Test
    void readPastTheEndFailsNamingTheBlobAndOffset() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "short");
            blob.writeAt(0, bytes("abc")).await();
            BlobInsufficientLengthException past = assertThrows(BlobInsufficientLengthException.class,
                    () -> blob.readAt(2, 4).await());
            String message = past.getMessage();
            assertTrue(message.contains("data/" + hex("short")), message);
            assertTrue(message.contains("offset 2"), message);
            assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(3, 1).await());
            assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(100, 1).await());
            // A zero-length read is always satisfied, also past the end.
            assertArrayEquals(new byte[0], blob.readAt(3, 0).await());
            assertArrayEquals(new byte[0], blob.readAt(1000, 0).await());
            blob.close();
            return null;
        });
    }

    @Test
    void emptyWritesChangeNothing() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "empty");
            blob.writeAt(0, bytes("ab")).await();
            int fsyncs = kernel.files.fsyncs;
            int submitted = kernel.submitted();
            assertNull(blob.writeAt(100, new byte[0][], WriteOptions.SYNC).await());
            assertNull(blob.writeAt(50, new byte[][] {new byte[0], new byte[0]}, WriteOptions.SYNC).await());
            assertNull(blob.writeAt(10, new byte[0]).await());
            assertEquals(2, blob.length());
            assertEquals(submitted, kernel.submitted(), "an empty write reaches no kernel");
            assertEquals(fsyncs, kernel.files.fsyncs);
            assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(2, 1).await());
            blob.close();
            OpenedBlob reopened = ctx.open("data", "empty").await();
            assertEquals(2, reopened.length());
            reopened.blob().close();
            return null;
        });
    }

    @Test
    void resizeExtendsWithZerosAndTruncates() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "resized");
            blob.writeAt(0, bytes("abcdef")).await();
            blob.resize(10).await();
            assertEquals(10, blob.length());
            assertArrayEquals(new byte[] {'e', 'f', 0, 0, 0, 0}, blob.readAt(4, 6).await());
            blob.resize(2).await();
            assertEquals(2, blob.length());
            assertArrayEquals(bytes("ab"), blob.readAt(0, 2).await());
            assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(0, 3).await());
            blob.resize(0).await();
            assertEquals(0, blob.length());
            blob.close();
            assertEquals(0, ctx.open("data", "resized").await().length());
            return null;
        });
    }

    @Test
    void syncOfACleanOpenMakesNoFsyncAndOfADirtyOneExactlyOne() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "durable");
            int fsyncs = kernel.files.fsyncs;
            assertNull(blob.sync().await());
            assertEquals(fsyncs, kernel.files.fsyncs, "a fresh open is clean");

            blob.writeAt(0, bytes("x")).await();
            blob.sync().await();
            assertEquals(fsyncs + 1, kernel.files.fsyncs, "a dirty open syncs once");
            blob.sync().await();
            assertEquals(fsyncs + 1, kernel.files.fsyncs, "synced: clean again");

            blob.resize(5).await();
            blob.sync().await();
            assertEquals(fsyncs + 2, kernel.files.fsyncs, "a resize makes the open dirty");
            blob.startSync().await();
            assertEquals(fsyncs + 2, kernel.files.fsyncs);
            blob.writeAt(1, bytes("y")).await();
            blob.startSync().await();
            assertEquals(fsyncs + 3, kernel.files.fsyncs, "startSync syncs a dirty open once");
            blob.close();

            // An open of an existing blob may see bytes an earlier open never synced: its first sync reaches the
            // kernel, after which it is clean.
            Blob again = open(ctx, "data", "durable");
            int before = kernel.files.fsyncs;
            again.sync().await();
            assertEquals(before + 1, kernel.files.fsyncs, "the first sync of a reopened blob reaches the kernel");
            again.sync().await();
            assertEquals(before + 1, kernel.files.fsyncs, "then it is clean");
            again.close();
            return null;
        });
    }

    @Test
    void syncsSerializeOnThePermit() {
        // Writes complete at once; fsyncs wait for the test.
        kernel.autoComplete(p -> p.opcode() == Opcode.FSYNC ? Integer.MIN_VALUE : kernel.files.execute(p));
        runner(4).start(ctx -> {
            Worker worker = Worker.current();
            EngineBlob blob = (EngineBlob) open(ctx, "data", "serial");
            blob.writeAt(0, bytes("one")).await();
            Operation<Void> first = blob.sync();
            ScriptedKernel.Pending firstFsync = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
            assertTrue(blob.permit().isHeld());

            // Written while the first sync runs: the second sync must reach the kernel, but only after the first.
            blob.writeAt(3, bytes("two")).await();
            Operation<Void> second = blob.sync();
            Operation<Void> third = blob.startSync();
            assertFalse(second.poll(Waker.noop()).isReady());
            turns(5);
            assertEquals(1, kernel.pending().stream().filter(p -> p.opcode() == Opcode.FSYNC).count(),
                    "one fsync at a time per open");

            kernel.complete(firstFsync, 0);
            assertNull(first.await());
            ScriptedKernel.Pending secondFsync = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
            turns(5);
            assertEquals(1, kernel.pending().stream().filter(p -> p.opcode() == Opcode.FSYNC).count());
            kernel.complete(secondFsync, 0);
            assertNull(second.await());
            // Nothing was written after the second sync took the dirty flag: the third needs no fsync.
            assertNull(third.await());
            serviceUntil("all syncs retired", () -> worker.admitted() == 0);
            assertTrue(kernel.pending().isEmpty());
            assertFalse(blob.permit().isHeld());
            blob.close();
            return null;
        });
    }

    /** Syncs of one open from fibers on two workers serialize on its permit; its release wakes the other worker. */
    @Test
    void syncsOnTwoWorkersSerializeOnOnePermit() {
        kernel.autoComplete(p -> p.opcode() == Opcode.FSYNC ? Integer.MIN_VALUE : kernel.files.execute(p));
        new ThreadedRunner(kernel, 2, 2, ROOT, "storage").start(ctx -> {
            Blob blob = open(ctx, "data", "twoWorkers");
            blob.writeAt(0, bytes("zero")).await();
            Operation<Void> first = blob.sync();
            ScriptedKernel.Pending firstFsync = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
            dev.lockstep.Handle<Void> other = ctx.child("other").spawnOn(1, c -> {
                blob.writeAt(4, bytes("one")).await();
                blob.sync().await();
                return null;
            });
            Support.turns(20);
            assertEquals(1, kernel.pending().stream().filter(p -> p.opcode() == Opcode.FSYNC).count());
            kernel.complete(firstFsync, 0);
            assertNull(first.await());
            ScriptedKernel.Pending secondFsync = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
            assertTrue(secondFsync.ring() != firstFsync.ring(), "the second fsync came from worker 1");
            kernel.complete(secondFsync, 0);
            assertNull(other.await());
            assertArrayEquals(bytes("zeroone"), blob.readAt(0, 7).await());
            blob.close();
            return null;
        });
    }

    /**
     * A sync waiting for a permit held elsewhere is woken by the permit's release (DurabilityPermit: "drivers
     * holding syncs that wait for it ... are woken by release()"), so its worker waits in the ring meanwhile
     * instead of spinning through service turns: the permit is released only once the worker has entered its
     * ring to wait, which a worker that counts the waiting sync as work to do never does.
     */
    @Test
    void aSyncWaitingForAPermitLetsItsWorkerSleep() {
        runner(4).start(ctx -> {
            EngineBlob blob = (EngineBlob) open(ctx, "data", "held");
            blob.writeAt(0, bytes("x")).await();
            assertTrue(blob.permit().tryAcquire(), "the test holds the permit, as a sync elsewhere would");
            Operation<Void> waiting = blob.sync();
            assertFalse(waiting.poll(Waker.noop()).isReady());
            ScriptedKernel.ScriptedRing ring = (ScriptedKernel.ScriptedRing) Worker.current().ring();
            int waitsBefore = ring.waits.get();
            // The fiber parks on the sync below, leaving its worker nothing to do but wait for the permit.
            dev.lockstep.Turns.Started releaser = Support.startPlain(() -> {
                try {
                    BoundedWait.parking("the worker waited in its ring while its sync waited for the permit",
                            () -> ring.waits.get() > waitsBefore);
                } finally {
                    blob.permit().release();
                }
            });
            assertNull(waiting.await());
            Support.joinYielding(releaser);
            blob.close();
            return null;
        });
    }

    /**
     * A resize is dirty when its truncate ran, not when it was admitted: a sync admitted on another worker in
     * between (whose flush may run before the truncate) must not take the flag, so the sync after the resize
     * still reaches the kernel and the new length is durable.
     */
    @Test
    void aResizeIsDurableAfterASyncAdmittedElsewhereBeforeItRan() {
        java.util.concurrent.atomic.AtomicBoolean resizeAdmitted = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean otherSynced = new java.util.concurrent.atomic.AtomicBoolean();
        new ThreadedRunner(kernel, 2, 4, ROOT, "resize").start(ctx -> {
            Blob blob = open(ctx, "data", "resized");
            blob.writeAt(0, bytes("abc")).await();
            blob.sync().await();
            var other = ctx.child("other").spawnOn(1, child -> {
                Support.serviceUntil("the resize was admitted", resizeAdmitted::get);
                blob.sync().await();
                otherSynced.set(true);
                return null;
            });
            Operation<Void> resize = blob.resize(10);
            resizeAdmitted.set(true);
            // Spin without yielding: worker 0 cannot service, so the truncate waits while worker 1 syncs.
            BoundedWait.spinning("the other worker's sync finished", otherSynced::get);
            other.await();
            int fsyncsBeforeTruncate = kernel.files.fsyncs;
            resize.await();
            assertEquals(10, blob.length());
            blob.sync().await();
            assertTrue(kernel.files.fsyncs > fsyncsBeforeTruncate,
                    "the sync after the resize reached the kernel; every earlier flush ran before the truncate");
            blob.close();
            return null;
        });
    }

    /**
     * Group sync (DurabilityPermit): one flush completes every sync waiting whose ticket it covers — even when
     * a write completed during that flush, which a second flush would otherwise have been issued for — and a
     * sync that arrives while a flush is in flight waits for the next one. Two workers: the flush worker 0
     * issues also completes the sync waiting on worker 1.
     */
    @Test
    void oneFlushCompletesEverySyncWaitingBeforeItWasIssued() {
        java.util.concurrent.atomic.AtomicInteger fsyncs = new java.util.concurrent.atomic.AtomicInteger();
        kernel.autoComplete(p -> {
            if (p.opcode() == Opcode.FSYNC) {
                fsyncs.incrementAndGet();
                return Integer.MIN_VALUE; // the test completes flushes itself
            }
            return kernel.files.execute(p);
        });
        new ThreadedRunner(kernel, 2, 8, ROOT, "group").start(ctx -> {
            try {
                return groupedSyncs(ctx, fsyncs);
            } finally {
                // Whatever happened, complete the flushes still in flight, so the workers can retire and an
                // assertion failure surfaces instead of a worker waiting for its fsync forever.
                kernel.autoCompleteFiles();
                for (ScriptedKernel.Pending pending : kernel.pending()) {
                    if (pending.opcode() == Opcode.FSYNC) {
                        kernel.complete(pending, 0);
                    }
                }
            }
        });
    }

    private Void groupedSyncs(Context ctx, java.util.concurrent.atomic.AtomicInteger fsyncs) {
        {
            Blob blob = open(ctx, "data", "grouped");
            blob.writeAt(0, bytes("a")).await();
            Operation<Void> first = blob.sync();
            ScriptedKernel.Pending flush1 = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);

            // While flush 1 is in flight: a write and three syncs, one of them on worker 1.
            blob.writeAt(1, bytes("b")).await();
            Operation<Void> second = blob.sync();
            Operation<Void> third = blob.sync();
            java.util.concurrent.atomic.AtomicBoolean otherDone = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicBoolean otherAdmitted = new java.util.concurrent.atomic.AtomicBoolean();
            var other = ctx.child("other").spawnOn(1, child -> {
                Operation<Void> sync = blob.sync();
                otherAdmitted.set(true);
                sync.await();
                otherDone.set(true);
                return null;
            });
            Support.serviceUntil("worker 1's sync was admitted", otherAdmitted::get);
            kernel.complete(flush1, 0);
            assertNull(first.await());
            assertFalse(second.poll(Waker.noop()).isReady(), "a sync that arrived during flush 1 waits");

            ScriptedKernel.Pending flush2 = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
            // A write completes during flush 2 (the open is dirty again), and a sync arrives.
            blob.writeAt(2, bytes("d")).await();
            Operation<Void> late = blob.sync();
            kernel.complete(flush2, 0);
            // Flush 2 completes the second, the third and worker 1's syncs: none of them waits for another
            // flush, although a write completed during flush 2 (polled, so a missing completion fails here).
            @SuppressWarnings("unchecked")
            dev.lockstep.Poll<Void>[] results = new dev.lockstep.Poll[2];
            serviceUntil("the syncs admitted before flush 2 was issued completed with it", () -> {
                if (results[0] == null || !results[0].isReady()) {
                    results[0] = second.poll(Waker.noop());
                }
                if (results[1] == null || !results[1].isReady()) {
                    results[1] = third.poll(Waker.noop());
                }
                return results[0].isReady() && results[1].isReady() && otherDone.get();
            });
            assertNull(results[0].get());
            assertNull(results[1].get());
            other.await();

            // The sync that arrived during flush 2 needs flush 3 (the write after flush 2 was issued).
            ScriptedKernel.Pending flush3 = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
            assertEquals(3, fsyncs.get(), "the second, third and worker 1's syncs shared flush 2");
            assertFalse(late.poll(Waker.noop()).isReady(), "the sync that arrived during flush 2 waits for flush 3");
            kernel.complete(flush3, 0);
            assertNull(late.await());
            assertEquals(3, fsyncs.get(), "five syncs, three flushes");
            blob.close();
            return null;
        }
    }

    /**
     * A SYNC write is a plain write (no RWF_DSYNC), then a sync of its open admitted once its bytes are written: a
     * flush already in flight when it was written does not complete it, the next one does, and that one flush
     * completes both SYNC writes and the sync waiting with them. A buffer it writes from stays in flight until the
     * flush completed.
     */
    @Test
    void syncWritesCompleteWithTheFirstFlushIssuedAfterTheirBytesWereWritten() {
        java.util.concurrent.atomic.AtomicInteger fsyncs = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<Integer> writeFlags = new java.util.concurrent.CopyOnWriteArrayList<>();
        kernel.autoComplete(p -> {
            if (p.opcode() == Opcode.FSYNC) {
                fsyncs.incrementAndGet();
                return Integer.MIN_VALUE; // the test completes flushes itself
            }
            if (p.opcode() == Opcode.WRITE) {
                writeFlags.add(p.rwFlags());
            }
            return kernel.files.execute(p);
        });
        runner(8).start(ctx -> {
            try {
                Blob blob = open(ctx, "data", "syncwrites");
                blob.writeAt(0, bytes("a")).await();
                Operation<Void> sync = blob.sync();
                ScriptedKernel.Pending flush1 = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);

                // While flush 1 is in flight, two SYNC writes, one from a buffer: both written, neither done.
                dev.lockstep.IoBuffer buffer = ctx.buffers().allocate(1);
                buffer.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 'c');
                Operation<Void> fromArray = blob.writeAt(1, new byte[][] {bytes("b")}, WriteOptions.SYNC);
                Operation<Void> fromBuffer = blob.writeFrom(2, buffer, 0, 1, WriteOptions.SYNC);
                serviceUntil("both SYNC writes reached the page cache", () -> blob.length() == 3);
                assertEquals(List.of(0, 0, 0), writeFlags, "plain writes: no RWF_DSYNC");
                kernel.complete(flush1, 0);
                assertNull(sync.await());
                assertFalse(fromArray.poll(Waker.noop()).isReady(), "written during flush 1: waits for flush 2");
                assertFalse(fromBuffer.poll(Waker.noop()).isReady());
                assertThrows(IllegalStateException.class, buffer::segment, "the buffer is in flight until the flush");

                ScriptedKernel.Pending flush2 = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
                kernel.complete(flush2, 0);
                assertNull(fromArray.await());
                assertNull(fromBuffer.await());
                assertEquals('c', (char) buffer.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
                assertEquals(2, fsyncs.get(), "one sync and two SYNC writes: two flushes");
                assertNull(blob.sync().await(), "clean: no flush");
                assertEquals(2, fsyncs.get());
                assertArrayEquals(bytes("abc"), blob.readAt(0, 3).await());
                buffer.close();
                blob.close();
                return null;
            } finally {
                kernel.autoCompleteFiles();
                for (ScriptedKernel.Pending pending : kernel.pending()) {
                    if (pending.opcode() == Opcode.FSYNC) {
                        kernel.complete(pending, 0);
                    }
                }
            }
        });
    }

    /**
     * The flush a SYNC write waits for fails (EIO): the write that issued it fails with the kernel's error, the
     * other waiting for the permit is refused naming it, neither is acknowledged, and the open is poisoned.
     */
    @Test
    void aFailedFlushFailsEverySyncWriteWaitingForIt() {
        kernel.autoComplete(p -> p.opcode() == Opcode.FSYNC ? Integer.MIN_VALUE : kernel.files.execute(p));
        runner(8).start(ctx -> {
            try {
                Blob blob = open(ctx, "data", "failing");
                Operation<Void> first = blob.writeAt(0, new byte[][] {bytes("a")}, WriteOptions.SYNC);
                ScriptedKernel.Pending flush = kernel.awaitPending(p -> p.opcode() == Opcode.FSYNC);
                Operation<Void> second = blob.writeAt(1, new byte[][] {bytes("b")}, WriteOptions.SYNC);
                serviceUntil("the second SYNC write reached the page cache", () -> blob.length() == 2);
                kernel.complete(flush, -dev.lockstep.kernel.Errno.EIO);
                dev.lockstep.StorageIoException failed = assertThrows(dev.lockstep.StorageIoException.class,
                        first::await);
                assertTrue(failed.getMessage().contains("EIO") && failed.getMessage().contains("data/failing"),
                        failed.getMessage());
                dev.lockstep.StorageIoException refused = assertThrows(dev.lockstep.StorageIoException.class,
                        second::await);
                assertTrue(refused.getMessage().contains("SYNC write of 1 bytes at offset 1")
                        && refused.getMessage().contains("an earlier sync of this open failed"),
                        refused.getMessage());
                assertEquals(1, ((EngineBlob) blob).permit().flushes(), "the refused write made no flush");
                assertThrows(dev.lockstep.StorageIoException.class, () -> blob.sync().await());
                assertFalse(((EngineBlob) blob).permit().isHeld());
                blob.close();
                return null;
            } finally {
                kernel.autoCompleteFiles();
            }
        });
    }

    /** Seed: test_start_sync_returns_while_ring_is_full. */
    @Test
    void startSyncReturnsAtOnceWithAFullRing() {
        kernel.autoComplete(p -> p.fd() == 7 ? Integer.MIN_VALUE : kernel.files.execute(p));
        runner(1).start(ctx -> {
            Worker worker = Worker.current();
            Blob blob = open(ctx, "data", "full");
            blob.writeAt(0, bytes("dirty")).await();
            Registration<Integer> blocker = register(new ScriptedRequest("blocker", false));
            kernel.awaitPending(p -> p.id().equals(blocker.key()));
            int fsyncs = kernel.files.fsyncs;

            // The only ring slot is occupied; startSync still hands the sync over now.
            Reentrant callbacks = new Reentrant(Support::criticalSection);
            int admitted = worker.admitted();
            Operation<Void> handle = blob.startSync();
            assertEquals(admitted + 1, worker.admitted(), "the sync was admitted at the call");
            assertFalse(handle.poll(callbacks.waker()).isReady());
            // And a dropped handle does not stop its sync.
            Operation<Void> dropped = blob.startSync();
            dropped.close();
            turns(3);
            assertEquals(fsyncs, kernel.files.fsyncs, "the ring is full: nothing ran yet");

            blocker.close();
            assertNull(handle.await());
            serviceUntil("both syncs retired", () -> worker.admitted() == 0);
            assertEquals(fsyncs + 1, kernel.files.fsyncs, "the dirty open synced once; the second was clean");
            blob.close();
            callbacks.assertBalanced();
            return null;
        });
    }

    /**
     * Immediate requests (open, remove, scan, resize, empty reads and writes) run in the next service turn, and
     * the fiber awaiting one must run right after it — not after the worker first blocked in the kernel for
     * another event (in runtime-uring, with nothing in flight and no timer, that wait has no end). The scripted
     * ring caps a blocking wait at 50 ms of real time and counts the waits that end by the cap.
     */
    @Test
    void immediateRequestsCompleteWithoutTheWorkerBlocking() {
        runner(4).start(ctx -> {
            ScriptedKernel.ScriptedRing ring = (ScriptedKernel.ScriptedRing) Worker.current().ring();
            int cappedBefore = ring.cappedWaits.get();
            long begin = System.nanoTime();
            Blob blob = open(ctx, "immediate", "blob");
            blob.resize(4).await();
            blob.readAt(0, 0).await();
            ctx.scan("immediate").await();
            blob.close();
            ctx.remove("immediate", null).await();
            long millis = (System.nanoTime() - begin) / 1_000_000;
            assertEquals(cappedBefore, ring.cappedWaits.get(),
                    "the worker blocked in the kernel while the awaiting fiber was runnable (" + millis + " ms)");
            return null;
        });
    }

    /** Short reads and writes, EINTR and EAGAIN are resubmitted until every byte moved. */
    @Test
    void shortTransfersAndInterruptsAreResubmitted() {
        int[] calls = new int[1];
        kernel.autoComplete(p -> {
            if (p.opcode() != Opcode.READ && p.opcode() != Opcode.WRITE && p.opcode() != Opcode.FSYNC) {
                return kernel.files.execute(p);
            }
            int call = calls[0]++;
            if (call % 3 == 1) {
                return call % 2 == 0 ? -dev.lockstep.kernel.Errno.EINTR : -dev.lockstep.kernel.Errno.EAGAIN;
            }
            if (p.opcode() == Opcode.FSYNC) {
                return kernel.files.execute(p);
            }
            // At most three bytes per transfer.
            return kernel.files.execute(new ScriptedKernel.Pending(p.opcode(), p.fd(), p.userData(),
                    Math.min(3, p.length()), p.offset(), p.rwFlags(), p.target(), p.buffer(), p.ring()));
        });
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "short");
            byte[] data = bytes("a longer payload that needs many short writes");
            blob.writeAt(5, data).await();
            assertEquals(5 + data.length, blob.length());
            assertArrayEquals(data, blob.readAt(5, data.length).await());
            assertArrayEquals(new byte[5], blob.readAt(0, 5).await());
            blob.sync().await();
            assertThrows(BlobInsufficientLengthException.class, () -> blob.readAt(40, 20).await());
            blob.close();
            return null;
        });
        assertTrue(calls[0] > 30, "transfers were split: " + calls[0]);
    }

    /**
     * A failed fsync reports the blob and poisons the open: a later sync of it fails at once, naming the first
     * failure, without reaching the kernel (whose next fsync would succeed without the pages the failure dropped);
     * a new open of the blob syncs again.
     */
    @Test
    void aFailedSyncIsReportedAndPoisonsTheOpen() {
        boolean[] failNext = {true};
        int[] submitted = {0};
        kernel.autoComplete(p -> {
            if (p.opcode() == Opcode.FSYNC) {
                submitted[0]++;
                if (failNext[0]) {
                    failNext[0] = false;
                    return -dev.lockstep.kernel.Errno.EIO;
                }
            }
            return kernel.files.execute(p);
        });
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "failing");
            blob.writeAt(0, bytes("x")).await();
            dev.lockstep.StorageIoException failed = assertThrows(dev.lockstep.StorageIoException.class,
                    () -> blob.sync().await());
            assertTrue(failed.getMessage().contains("data/" + hex("failing")), failed.getMessage());
            int fsyncs = submitted[0];
            dev.lockstep.StorageIoException refused = assertThrows(dev.lockstep.StorageIoException.class,
                    () -> blob.sync().await());
            assertTrue(refused.getMessage().contains("an earlier sync of this open failed")
                    && refused.getMessage().contains("EIO"), refused.getMessage());
            assertEquals(fsyncs, submitted[0], "the refused sync did not reach the kernel");
            assertFalse(((EngineBlob) blob).permit().isHeld(), "a failed sync released the permit");
            blob.close();
            Blob again = open(ctx, "data", "failing");
            again.writeAt(0, bytes("y")).await();
            assertNull(again.sync().await());
            again.close();
            return null;
        });
    }

    /**
     * A SYNC write whose flush failed (EIO) poisons the open as a failed sync does: Linux reported the writeback
     * error to that write, so a later fdatasync of the open would succeed without the pages it dropped.
     */
    @Test
    void aSyncWriteThatFailedWithAnIoErrorPoisonsTheOpen() {
        boolean[] failNext = {false};
        kernel.autoComplete(p -> {
            if (p.opcode() == Opcode.WRITE && failNext[0]) {
                failNext[0] = false;
                return -dev.lockstep.kernel.Errno.EIO;
            }
            return kernel.files.execute(p);
        });
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "syncwrite");
            blob.writeAt(0, bytes("x")).await();
            failNext[0] = true;
            assertThrows(dev.lockstep.StorageIoException.class,
                    () -> blob.writeAt(1, new byte[][] {bytes("y")}, dev.lockstep.WriteOptions.SYNC).await());
            dev.lockstep.StorageIoException refused = assertThrows(dev.lockstep.StorageIoException.class,
                    () -> blob.sync().await());
            assertTrue(refused.getMessage().contains("an earlier sync of this open failed"), refused.getMessage());
            blob.close();
            return null;
        });
    }

    /** A full device is reported as StorageFullException naming the blob. */
    @Test
    void aFullDeviceIsReportedAsStorageFull() {
        kernel.autoComplete(p -> p.opcode() == Opcode.WRITE ? -dev.lockstep.kernel.Errno.ENOSPC
                : kernel.files.execute(p));
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "full");
            dev.lockstep.StorageFullException full = assertThrows(dev.lockstep.StorageFullException.class,
                    () -> blob.writeAt(0, bytes("x")).await());
            assertTrue(full.getMessage().contains("data/" + hex("full")), full.getMessage());
            blob.close();
            return null;
        });
    }

    @Test
    void removeAndScan() {
        runner(4).start(ctx -> {
            for (String name : new String[] {"b", "a", "c"}) {
                open(ctx, "listed", name).close();
            }
            List<byte[]> names = ctx.scan("listed").await();
            assertEquals(List.of("a", "b", "c"),
                    names.stream().map(n -> new String(n, StandardCharsets.UTF_8)).toList());
            // Binary names sort as unsigned bytes.
            ctx.open("binary", new byte[] {(byte) 0xff}).await().blob().close();
            ctx.open("binary", new byte[] {0x01}).await().blob().close();
            List<byte[]> binary = ctx.scan("binary").await();
            assertArrayEquals(new byte[] {0x01}, binary.get(0));
            assertArrayEquals(new byte[] {(byte) 0xff}, binary.get(1));

            assertNull(ctx.remove("listed", bytes("b")).await());
            assertEquals(2, ctx.scan("listed").await().size());
            BlobMissingException missingBlob = assertThrows(BlobMissingException.class,
                    () -> ctx.remove("listed", bytes("b")).await());
            assertTrue(missingBlob.getMessage().contains("listed/" + hex("b")), missingBlob.getMessage());

            assertNull(ctx.remove("listed", null).await());
            PartitionMissingException gone = assertThrows(PartitionMissingException.class,
                    () -> ctx.scan("listed").await());
            assertTrue(gone.getMessage().contains("'listed'"), gone.getMessage());
            assertThrows(PartitionMissingException.class, () -> ctx.remove("listed", null).await());
            assertThrows(PartitionMissingException.class, () -> ctx.remove("never", bytes("x")).await());
            assertThrows(PartitionMissingException.class, () -> ctx.scan("never").await());

            // Re-opening a removed name creates a new, empty blob.
            assertEquals(0, ctx.open("listed", "a").await().length());
            return null;
        });
    }

    @Test
    void badArgumentsAreRejectedAtTheCallNamingTheValue() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "checked");
            int admitted = Worker.current().admitted();
            expectNaming(IllegalArgumentException.class, "-1", () -> blob.readAt(-1, 1));
            expectNaming(IllegalArgumentException.class, "-5", () -> blob.readAt(0, -5));
            expectNaming(IllegalArgumentException.class, "overflow", () -> blob.readAt(Long.MAX_VALUE, 1));
            expectNaming(IllegalArgumentException.class, "-3", () -> blob.writeAt(-3, bytes("x")));
            expectNaming(IllegalArgumentException.class, "overflow",
                    () -> blob.writeAt(Long.MAX_VALUE - 1, bytes("xyz")));
            expectNaming(IllegalArgumentException.class, "-7", () -> blob.resize(-7));
            for (String bad : new String[] {"my/partition", "../escape", "", "a b", "dot.ted"}) {
                expectNaming(PartitionNameInvalidException.class, "'" + bad + "'", () -> ctx.open(bad, "x"));
                expectNaming(PartitionNameInvalidException.class, "'" + bad + "'", () -> ctx.scan(bad));
                expectNaming(PartitionNameInvalidException.class, "'" + bad + "'",
                        () -> ctx.remove(bad, bytes("x")));
                expectNaming(PartitionNameInvalidException.class, "'" + bad + "'", () -> ctx.remove(bad, null));
            }
            assertThrows(PartitionNameInvalidException.class, () -> ctx.open(null, "x"));
            assertThrows(IllegalArgumentException.class, () -> ctx.open("data", new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> ctx.remove("data", new byte[0]));
            assertEquals(admitted, Worker.current().admitted(), "nothing was registered");
            // Valid names at the edges of the alphabet.
            open(ctx, "Az09_-", "x").close();
            blob.close();
            return null;
        });
        assertEquals(0, kernel.files.openCount());
    }

    private static void expectNaming(Class<? extends RuntimeException> type, String named, Executable call) {
        RuntimeException thrown = assertThrows(type, call::execute);
        assertTrue(thrown.getMessage().contains(named), "'" + thrown.getMessage() + "' names " + named);
    }

    /** A checked-exception-free executable (JUnit's throws Throwable, which lambdas here do not need). */
    @FunctionalInterface
    private interface Executable {
        void execute();
    }

    @Test
    void callsOnAClosedBlobAreRefused() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "closed");
            blob.writeAt(0, bytes("abc")).await();
            blob.close();
            blob.close();
            List<Executable> calls = List.of(() -> blob.readAt(0, 1), () -> blob.readAt(0, 0),
                    () -> blob.writeAt(0, bytes("x")), () -> blob.writeAt(0, new byte[0]), () -> blob.resize(1),
                    blob::sync, blob::startSync);
            for (Executable call : calls) {
                ClosedException closed = assertThrows(ClosedException.class, call::execute);
                assertTrue(closed.getMessage().contains("data/" + hex("closed")), closed.getMessage());
            }
            return null;
        });
        assertEquals(0, kernel.files.openCount());
    }

    @Test
    void closingABlobWithWorkInFlightKeepsTheFdUntilItRetires() {
        kernel.autoComplete(p -> p.opcode() == Opcode.WRITE ? Integer.MIN_VALUE : kernel.files.execute(p));
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "data", "busy");
            int open = kernel.files.openCount();
            Operation<Void> write = blob.writeAt(0, bytes("late"));
            ScriptedKernel.Pending pending = kernel.awaitPending(p -> p.opcode() == Opcode.WRITE);
            blob.close();
            assertEquals(open, kernel.files.openCount(), "the in-flight write still holds the fd");
            kernel.complete(pending, kernel.files.execute(pending));
            assertNull(write.await());
            serviceUntil("the fd was closed", () -> kernel.files.openCount() == open - 1);
            return null;
        });
        assertEquals(0, kernel.files.openCount());
    }

    @Test
    void aSecondRunnerOnAHeldStorageRootIsRefused() {
        runner(4).start(ctx -> {
            Blob blob = open(ctx, "held", "blob");
            blob.writeAt(0, bytes("abc")).await();
            blob.sync().await();
            blob.close();
            StorageHeldException held = onPlainThread(() -> assertThrows(StorageHeldException.class,
                    () -> new ThreadedRunner(kernel, 1, 1, ROOT, "second").start(c -> "ran")));
            assertTrue(held.getMessage().contains(ROOT), held.getMessage());
            return null;
        });
        // Released with the first runner: a new one may take it, and sees what the first left.
        long length = runner(4).start(ctx -> {
            OpenedBlob opened = ctx.open("held", "blob").await();
            opened.blob().close();
            return opened.length();
        });
        assertEquals(3, length);
        assertEquals(0, kernel.files.openCount());
    }

    @Test
    void aRunnerOnAnotherRootIsIndependent() {
        runner(4).start(ctx -> {
            String other = onPlainThread(() -> new ThreadedRunner(kernel, 1, 1, "/other", "second")
                    .start(c -> {
                        Blob blob = c.open("p", "b").await().blob();
                        blob.writeAt(0, bytes("z")).await();
                        blob.close();
                        return "ran";
                    }));
            assertEquals("ran", other);
            return null;
        });
    }

    /** Two workers' fibers use one blob: each call registers on the caller's worker. */
    @Test
    void aBlobIsUsableFromFibersOfEveryWorker() {
        new ThreadedRunner(kernel, 2, 2, ROOT, "storage").start(ctx -> {
            Blob blob = open(ctx, "shared", "blob");
            blob.writeAt(0, bytes("from0")).await();
            byte[] seen = ctx.child("other").spawnOn(1, c -> {
                assertEquals(1, Worker.current().index());
                blob.writeAt(5, bytes("from1")).await();
                blob.sync().await();
                return blob.readAt(0, 10).await();
            }).await();
            assertArrayEquals(bytes("from0from1"), seen);
            assertArrayEquals(bytes("from1"), blob.readAt(5, 5).await());
            blob.close();
            return null;
        });
        assertEquals(0, kernel.files.openCount());
    }

    @Test
    void aCreationWhoseDirectorySyncFailedIsMadeDurableByTheNextOpen() {
        kernel.autoCompleteFiles();
        runner(4).start(ctx -> {
            // The partition's creation: mkdir succeeds, the fsync of the storage root fails.
            kernel.files.failFsyncs = 1;
            assertThrows(dev.lockstep.StorageIoException.class, () -> ctx.open("fresh", "blob").await());
            int before = kernel.files.fsyncs;
            // The retry finds the directory, and still makes its entry durable before trusting it.
            Blob blob = open(ctx, "fresh", "blob");
            assertTrue(kernel.files.fsyncs >= before + 3,
                    "root, blob and partition fsyncs on the retry, saw " + (kernel.files.fsyncs - before));
            blob.close();

            // The blob's creation: the file is made, its fsync fails; the file is not left open.
            int openFiles = kernel.files.openCount();
            kernel.files.failFsyncs = 1;
            assertThrows(dev.lockstep.StorageIoException.class, () -> ctx.open("fresh", "second").await());
            assertEquals(openFiles, kernel.files.openCount(), "a failed creation leaks no fd");
            before = kernel.files.fsyncs;
            open(ctx, "fresh", "second").close();
            assertEquals(before + 2, kernel.files.fsyncs, "the retry syncs the file and its directory");
            // Once durable, opening again needs no directory fsync.
            before = kernel.files.fsyncs;
            open(ctx, "fresh", "second").close();
            assertEquals(before, kernel.files.fsyncs);
            return null;
        });
    }
}
