package dev.lockstep.demo.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Handle;
import dev.lockstep.OpenedBlob;
import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.Outcome;
import dev.lockstep.sim.Recovered;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.uring.UringRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on its own: writes, reads, group commit, recovery, torn tails, segment rolls. */
class KvStoreTest {
    private static final KvOptions SMALL = KvOptions.defaults("kv").withSegmentBytes(512);

    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetDeleteAndReopen() {
        SimRunner.seeded(1).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                store.put(b("a"), b("1"));
                store.put(b("b"), b("2"));
                store.put(b("a"), b("3"));
                store.delete(b("b"));
                assertArrayEquals(b("3"), store.get(b("a")));
                assertNull(store.get(b("b")));
                assertNull(store.get(b("never")));
            }
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertEquals(4, store.recovery().records());
                assertEquals(1, store.recovery().keys());
                assertArrayEquals(b("3"), store.get(b("a")));
                assertNull(store.get(b("b")));
            }
            return null;
        });
    }

    @Test
    void concurrentPutsShareSyncs() {
        KvStore.Stats stats = SimRunner.seeded(2).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                List<Handle<Void>> writers = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    int n = i;
                    writers.add(ctx.child("w" + i).spawn(c -> {
                        store.put(b("k" + n), b("v" + n));
                        return null;
                    }));
                }
                for (Handle<Void> writer : writers) {
                    writer.await();
                }
                for (int i = 0; i < 50; i++) {
                    assertArrayEquals(b("v" + i), store.get(b("k" + i)));
                }
                return store.stats();
            }
        });
        assertEquals(50, stats.puts());
        assertTrue(stats.syncs() < 10, "50 concurrent puts took " + stats.syncs() + " syncs");
    }

    @Test
    void submittedPutsCommitInOrderAndShareSyncs() {
        KvStore.Stats stats = SimRunner.seeded(4).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                List<KvStore.Submitted> submitted = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    submitted.add(store.submitPut(b("k"), b("v" + i)));
                }
                for (KvStore.Submitted put : submitted) {
                    put.await();
                }
                assertArrayEquals(b("v29"), store.get(b("k")), "the last submitted put wins");
                // A put owns copies of its key and value from the call on: the caller may reuse its arrays.
                byte[] key = b("reused");
                byte[] value = b("first");
                KvStore.Submitted reused = store.submitPut(key, value);
                value[0] = 'F';
                key[0] = 'R';
                reused.await();
                assertArrayEquals(b("first"), store.get(b("reused")));
                assertEquals(null, store.get(b("Reused")));
                assertThrows(IllegalArgumentException.class, () -> store.submitPut(new byte[0], b("v")));
                return store.stats();
            }
        });
        assertEquals(31, stats.puts());
        assertEquals(2, stats.syncs(), "30 puts submitted by one caller before it waits share one batch (the put of"
                + " the reused arrays is a second)");
    }

    @Test
    void aWriterThatTimesOutWhileCommittingLeavesItsBatchToTheNextWriter() {
        SimRunner.seeded(6).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                // The lone writer commits its own batch; its timeout expires in the commit's write or sync.
                assertThrows(dev.lockstep.TimeoutException.class, () -> ctx.timeout(
                        java.time.Duration.ofNanos(1), () -> {
                            store.put(b("a"), b("1"));
                            return null;
                        }));
                assertTrue(!store.isPoisoned(), "a committer's timeout is not a failure of the log: "
                        + store.failure());
                // The next writer commits the interrupted batch first, then its own.
                store.put(b("b"), b("2"));
                assertArrayEquals(b("1"), store.get(b("a")));
                assertArrayEquals(b("2"), store.get(b("b")));
            }
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                assertEquals(2, store.recovery().records(), "each record written once");
                assertArrayEquals(b("1"), store.get(b("a")));
                assertArrayEquals(b("2"), store.get(b("b")));
            }
            return null;
        });
    }

    @Test
    void syncEverySecondAcknowledgesBeforeTheSyncAndSyncsWithinASecond() {
        KvOptions options = KvOptions.defaults("kv").withDurability(KvOptions.Durability.SYNC_EVERY_SECOND);
        SimConfig config = SimConfig.builder().seed(5).failOnLeaks(false).build();
        Recovered<Long> first = SimRunner.of(config).startAndRecover(ctx -> {
            KvStore store = KvStore.open(ctx, options);
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
            long syncsAtAck = store.stats().syncs();
            ctx.sleep(java.time.Duration.ofMillis(1_500));
            assertEquals(1, store.stats().syncs() - syncsAtAck, "one sync in the second after the puts");
            return syncsAtAck;
        });
        assertEquals(new dev.lockstep.sim.Outcome.Completed<>(0L), first.outcome(),
                "the puts were acknowledged before any sync");
        SimRunner.from(first.checkpoint()).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                assertArrayEquals(b("1"), store.get(b("a")), "synced by the once-a-second sync before the crash");
                assertArrayEquals(b("2"), store.get(b("b")));
            }
            return null;
        });
    }

    @Test
    void syncEverySecondAcknowledgesPutsWhileItsSyncRunsAndACrashLosesThePutAfterItsLastSync() {
        // Writes complete at submission; every request that waits (a sync among them) takes exactly 50 ms. So the
        // first once-a-second sync is in flight from 1,000 to 1,050 ms after the store opened, and a roll (three
        // syncs) takes 150 ms. Every unsynced write is lost in the crash.
        long requestNanos = 50_000_000;
        KernelBehavior kernel = KernelBehavior.DEFAULT.withInlineCompletionRate(1)
                .withLatency(requestNanos, requestNanos);
        KvOptions options = SMALL.withDurability(KvOptions.Durability.SYNC_EVERY_SECOND);
        SimConfig config = SimConfig.builder().seed(6).kernelBehavior(kernel).crashPolicy(CrashPolicy.ALL_LOST)
                .failOnLeaks(false).build();
        Recovered<String> first = SimRunner.of(config).startAndRecover(ctx -> {
            KvStore store = KvStore.open(ctx, options);
            store.put(b("before"), b("0"));
            ctx.sleep(Duration.ofMillis(1_025));
            Instant during = ctx.now();
            store.put(b("during"), b("1"));
            assertEquals(during, ctx.now(), "a put made while the sync runs is acknowledged without waiting for it");
            assertEquals(0, store.stats().syncs(), "the sync was still running");
            ctx.sleep(Duration.ofMillis(50));
            assertEquals(1, store.stats().syncs(), "the sync ended 50 ms after it started");
            // Enough puts to roll past two segments before the next sync starts; they are all written by then.
            for (int i = 0; i < 30; i++) {
                store.put(b("rolled" + i), b("v" + i));
            }
            assertTrue(store.stats().segmentsRolled() >= 2, store.stats().toString());
            long syncs = store.stats().syncs();
            ctx.sleep(Duration.ofMillis(1_100));
            assertEquals(syncs + 1, store.stats().syncs(), "one more once-a-second sync");
            store.put(b("after"), b("2"));
            return "written"; // the power goes: the last put was acknowledged after the last sync
        });
        if (first.outcome() instanceof Outcome.Failed<String> failed) {
            throw new AssertionError("the run before the crash failed", failed.failure());
        }
        assertEquals(new Outcome.Completed<>("written"), first.outcome());
        SimRunner.from(first.checkpoint()).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                assertArrayEquals(b("0"), store.get(b("before")));
                assertArrayEquals(b("1"), store.get(b("during")), "synced by the second sync");
                for (int i = 0; i < 30; i++) {
                    assertArrayEquals(b("v" + i), store.get(b("rolled" + i)), "rolled" + i);
                }
                assertNull(store.get(b("after")), "acknowledged within the last second, never synced: lost");
            }
            return null;
        });
    }

    @Test
    void aFailedOnceASecondSyncPoisonsTheStoreAndLaterWritesSayWhy() {
        KvOptions options = KvOptions.defaults("kv").withDurability(KvOptions.Durability.SYNC_EVERY_SECOND);
        SimRunner.seeded(7).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                store.put(b("a"), b("1"));
                // Every sync from now on fails: the first once-a-second one, a second after the store opened.
                SimRunner.control(ctx).storageFaults(StorageFaults.builder().syncRate(1).build());
                ctx.sleep(Duration.ofMillis(1_500));
                assertTrue(store.isPoisoned(), "the failed sync poisoned the store");
                assertEquals(0, store.stats().syncs(), "no sync completed");
                StoreUnavailableException refused = assertThrows(StoreUnavailableException.class,
                        () -> store.put(b("b"), b("2")));
                assertTrue(refused.getMessage().contains(String.valueOf(store.failure().getMessage())),
                        refused.getMessage());
                assertThrows(StoreUnavailableException.class, () -> store.get(b("a")));
            }
            return null;
        });
    }

    @Test
    void acknowledgedPutsSurviveACrashAndRollsSpanSegments() {
        // The store is left open on purpose (the power goes while it is in use), so the leak check is off.
        SimConfig config = SimConfig.builder().seed(3).failOnLeaks(false).build();
        Recovered<Void> first = SimRunner.of(config).startAndRecover(ctx -> {
            KvStore store = KvStore.open(ctx, SMALL);
            for (int i = 0; i < 40; i++) {
                store.put(b("key" + i), b("value" + i));
            }
            return null; // the power goes right after: no close
        });
        SimRunner.from(first.checkpoint()).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertTrue(store.recovery().segments() > 1, store.recovery().toString());
                for (int i = 0; i < 40; i++) {
                    assertArrayEquals(b("value" + i), store.get(b("key" + i)), "key" + i);
                }
            }
            return null;
        });
    }

    @Test
    void recoveryTruncatesATornTailDurably() {
        SimRunner.seeded(4).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                store.put(b("a"), b("1"));
            }
            byte[] record = Records.encode(Records.PUT, 99, b("torn"), new byte[100]);
            OpenedBlob segment = ctx.open("kv", Records.segmentName(1)).await();
            try (Blob blob = segment.blob()) {
                blob.writeAt(segment.length(), java.util.Arrays.copyOf(record, 50)).await();
                blob.sync().await();
            }
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                assertEquals(50, store.recovery().truncatedBytes());
                assertNull(store.get(b("torn")));
                store.put(b("b"), b("2"));
            }
            try (KvStore store = KvStore.open(ctx, KvOptions.defaults("kv"))) {
                assertEquals(0, store.recovery().truncatedBytes());
                assertArrayEquals(b("1"), store.get(b("a")));
                assertArrayEquals(b("2"), store.get(b("b")));
            }
            return null;
        });
    }

    /**
     * A roll does not wait for its segment's create: the segment after the current one is opened ahead, so it is
     * on disk, unlisted, while the store runs. Recovery keeps that one (it is the next roll's), and the roll that
     * lists it first empties it, so whatever an interrupted roll left in it never reads back as records.
     */
    @Test
    void theNextSegmentIsOpenedAheadKeptByRecoveryAndEmptiedByTheRollThatListsIt() {
        SimRunner.seeded(6).start(ctx -> {
            long current;
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                for (int i = 0; store.stats().segmentsRolled() < 2; i++) {
                    store.put(b("k" + i), new byte[100]);
                }
                current = store.stats().segmentsRolled();
                assertTrue(segmentsOnDisk(ctx).contains(Records.segmentName(current + 1)),
                        () -> "segment " + (current + 1) + " opened ahead: " + segmentsOnDisk(ctx));
            }
            // Records of a roll that never completed, with a valid header: they must not come back.
            Blob ahead = ctx.open("kv", Records.segmentName(current + 1)).await().blob();
            ahead.writeAt(0, Records.segmentHeader(current + 1)).await();
            ahead.writeAt(Records.SEGMENT_HEADER_BYTES, Records.encode(Records.PUT, 999, b("ghost"), b("boo"))).await();
            ahead.sync().await();
            ahead.close();
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertEquals(0, store.recovery().removedSegments(), "the segment opened ahead is kept");
                assertNull(store.get(b("ghost")), "an unlisted segment is no part of the log");
                for (int i = 0; store.stats().segmentsRolled() < 1; i++) {
                    store.put(b("m" + i), new byte[100]);
                }
            }
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertNull(store.get(b("ghost")), "the roll that listed the segment emptied it first");
                assertArrayEquals(new byte[100], store.get(b("k0")));
                assertArrayEquals(new byte[100], store.get(b("m0")));
            }
            return null;
        });
    }

    /**
     * The open started ahead runs when its predecessor becomes current, possibly long before the roll that needs
     * it: a fault it met then (here an injected {@code EIO} on every open while it ran) is gone by the roll, which
     * opens the segment itself and succeeds; the store is not poisoned and loses nothing.
     */
    @Test
    void aRollWhoseOpenAheadFailedOpensTheSegmentItself() {
        SimRunner.seeded(9).start(ctx -> {
            int puts = 0;
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                // A scan of the partition runs after every metadata request admitted before it (one lane per
                // partition, in admission order): once it returned, the open ahead of segment 2 is done.
                segmentsOnDisk(ctx);
                SimRunner.control(ctx).storageFaults(StorageFaults.builder().openRate(1).build());
                while (store.stats().segmentsRolled() < 2) {
                    store.put(b("k" + puts), new byte[100]);
                    puts++;
                }
                // The roll to segment 2 started the open of segment 3, which failed and created nothing.
                assertFalse(segmentsOnDisk(ctx).contains(Records.segmentName(3)),
                        () -> "the open ahead of segment 3 failed: " + segmentsOnDisk(ctx));
                SimRunner.control(ctx).storageFaults(StorageFaults.NONE);
                while (store.stats().segmentsRolled() < 3) {
                    store.put(b("k" + puts), new byte[100]);
                    puts++;
                }
                assertFalse(store.isPoisoned(), () -> "poisoned by " + store.failure());
                assertTrue(segmentsOnDisk(ctx).contains(Records.segmentName(4)), "segment 3's roll opened 4 ahead");
            }
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertEquals(3, store.recovery().segments());
                assertEquals(puts, store.recovery().keys());
                for (int i = 0; i < puts; i++) {
                    assertArrayEquals(new byte[100], store.get(b("k" + i)), "k" + i);
                }
            }
            return null;
        });
    }

    private static List<String> segmentsOnDisk(dev.lockstep.Context ctx) {
        List<String> names = new ArrayList<>();
        for (byte[] name : ctx.scan("kv").await()) {
            names.add(new String(name, StandardCharsets.UTF_8));
        }
        return names;
    }

    @Test
    void unlistedSegmentsAreRemovedAndBadArgumentsRejected() {
        SimRunner.seeded(5).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertThrows(IllegalArgumentException.class, () -> store.put(new byte[0], b("x")));
                assertThrows(IllegalArgumentException.class, () -> store.put(new byte[2000], b("x")));
            }
            ctx.open("kv", Records.segmentName(7)).await().blob().close();
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertEquals(1, store.recovery().removedSegments());
            }
            return null;
        });
    }

    @Test
    void syncEverySecondOnIoUringRunsItsSyncerBesideWritersOfTwoWorkersThatRoll(@TempDir Path dir)
            throws Exception {
        // The syncer and the committing fibers meet on two workers: the syncer reads the current segment while
        // commits roll past it, and syncs it while they append. Writers go on until a sync completed and the log
        // rolled twice; nothing hangs or fails, and a clean close keeps every acknowledged put (the page cache holds
        // them: what a crash loses is KvStoreEverySecondTest's).
        KvOptions options = KvOptions.defaults("kv").withSegmentBytes(64 << 10)
                .withDurability(KvOptions.Durability.SYNC_EVERY_SECOND);
        Path data = Files.createDirectories(dir.resolve("data"));
        int writers = 8;
        long[] written = UringRunner.builder().workers(2).storage(data).build().start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                List<Handle<Long>> handles = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    int writer = w;
                    handles.add(ctx.child("w" + w).spawnOn(w % 2, c -> {
                        long i = 0;
                        while (store.stats().syncs() < 1 || store.stats().segmentsRolled() < 3) {
                            store.put(b("w" + writer + "-" + i), b("v" + i));
                            i++;
                        }
                        return i;
                    }));
                }
                long[] counts = new long[writers];
                for (int w = 0; w < writers; w++) {
                    counts[w] = handles.get(w).await();
                }
                return counts;
            }
        });
        UringRunner.builder().workers(1).storage(data).build().start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                long total = 0;
                for (int w = 0; w < writers; w++) {
                    total += written[w];
                    long last = written[w] - 1;
                    if (last >= 0) {
                        assertArrayEquals(b("v" + last), store.get(b("w" + w + "-" + last)), "w" + w + "-" + last);
                    }
                }
                assertEquals(total, store.recovery().keys(), "every acknowledged put, after a clean close: "
                        + store.recovery());
            }
            return null;
        });
    }

    @Test
    void theSameStoreRunsOnIoUring(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        UringRunner.builder().workers(2).storage(data).build().start(ctx -> {
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                List<Handle<Void>> writers = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    int writer = w;
                    writers.add(ctx.child("w" + w).spawnOn(w % 2, c -> {
                        for (int i = 0; i < 25; i++) {
                            store.put(b("w" + writer + "-" + i), b("v" + i));
                        }
                        return null;
                    }));
                }
                for (Handle<Void> writer : writers) {
                    writer.await();
                }
            }
            return null;
        });
        UringRunner.builder().workers(1).storage(data).build().start(ctx -> {
            try (KvStore store = KvStore.open(ctx, SMALL)) {
                assertEquals(100, store.recovery().keys());
                assertArrayEquals(b("v24"), store.get(b("w3-24")));
            }
            return null;
        });
    }
}
