package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.LockstepException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.StorageIoException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Crash and recover through the public API: {@code startAndRecover} returns the outcome and a checkpoint, a
 * runner built from the checkpoint continues, and loops of unclean restarts keep every synced byte.
 */
class RecoveryTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theTaskCrashesTheMachineAndTheNextRunFindsWhatWasSynced() {
        SimConfig config = SimConfig.builder().seed(11).workers(2).build();
        Recovered<String> first = SimRunner.of(config).startAndRecover(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            assertEquals(0, sim.restarts());
            try (Blob blob = ctx.open("p", "durable").await().blob()) {
                blob.writeAt(0, bytes("synced")).await();
                blob.sync().await();
                blob.writeAt(6, bytes("+lost")).await();
                ctx.sleep(Duration.ofMillis(5));
                throw sim.crash();
            }
        });
        assertTrue(first.outcome().crashed());
        if (!(first.outcome() instanceof Outcome.Crashed<String> crashed)) {
            throw new AssertionError("expected a crash, got " + first.outcome());
        }
        assertTrue(crashed.reason().contains("SimControl.crash()"), crashed.reason());
        Checkpoint checkpoint = first.checkpoint();
        assertEquals(1, checkpoint.restarts());
        assertEquals(crashed.at(), checkpoint.crashedAt());
        assertTrue(checkpoint.clockNanos() >= config.startNanos() + Duration.ofMillis(5).toNanos());
        // ALL_LOST, the default: exactly the synced bytes, whatever the blob file is called on disk.
        List<byte[]> files = new ArrayList<>();
        checkpoint.storage().files().forEach((path, contents) -> {
            if (path.startsWith("/lockstep/p/")) {
                files.add(contents);
            }
        });
        assertEquals(1, files.size());
        assertArrayEquals(bytes("synced"), files.getFirst());
        assertEquals(1, checkpoint.crashReport().files().values().stream().mapToInt(List::size).sum(),
                "one unsynced write met the policy");

        String[] seen = new String[2];
        for (int i = 0; i < 2; i++) {
            int run = i;
            Recovered<String> second = SimRunner.from(checkpoint).startAndRecover(ctx -> {
                assertEquals(1, SimRunner.control(ctx).restarts());
                assertFalse(ctx.now().isBefore(checkpoint.crashedAt()), "the clock continues");
                OpenedBlob opened = ctx.open("p", "durable").await();
                try (Blob blob = opened.blob()) {
                    seen[run] = new String(blob.readAt(0, (int) opened.length()).await(), StandardCharsets.UTF_8)
                            + "@" + ctx.digest();
                }
                return seen[run];
            });
            assertEquals(new Outcome.Completed<>(seen[run]), second.outcome());
            assertEquals(2, second.checkpoint().restarts());
        }
        assertTrue(seen[0].startsWith("synced@"), seen[0]);
        assertEquals(seen[0], seen[1], "one checkpoint starts any number of identical runs");
    }

    @Test
    void aTaskThatFinishesIsFollowedByAPowerCut() {
        Recovered<Integer> recovered = SimRunner.of(SimConfig.builder().seed(12).build()).startAndRecover(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, bytes("never synced")).await();
                return 7;
            }
        });
        assertEquals(new Outcome.Completed<>(7), recovered.outcome());
        assertEquals(7, recovered.outcome().value());
        assertTrue(recovered.checkpoint().reason().contains("root task finished"),
                recovered.checkpoint().reason());
        recovered.checkpoint().storage().files().forEach((path, contents) -> {
            if (path.startsWith("/lockstep/p/")) {
                assertEquals(0, contents.length, "the open is durable, the unsynced write is not");
            }
        });
    }

    @Test
    void aTaskThatFailsReportsItsFailure() {
        Recovered<Object> recovered = SimRunner.of(SimConfig.builder().seed(13).build()).startAndRecover(ctx -> {
            throw new java.io.IOException("checked");
        });
        if (!(recovered.outcome() instanceof Outcome.Failed<Object> failed)) {
            throw new AssertionError("expected a failure, got " + recovered.outcome());
        }
        assertInstanceOf(java.io.IOException.class, failed.failure());
        assertThrows(IllegalStateException.class, () -> recovered.outcome().value());
    }

    @Test
    void crashOutsideStartAndRecoverIsRefused() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> SimRunner.seeded(14).start(ctx -> {
                    throw SimRunner.control(ctx).crash();
                }));
        assertTrue(refused.getMessage().contains("startAndRecover"), refused.getMessage());
    }

    @Test
    void tasksUnwindingAfterTheCrashCannotReachTheDisk() {
        List<String> seenAfterCrash = new ArrayList<>();
        Recovered<Void> recovered = SimRunner.of(SimConfig.builder().seed(15).workers(2).build())
                .startAndRecover(ctx -> {
                    SimControl sim = SimRunner.control(ctx);
                    Blob blob = ctx.open("p", "b").await().blob();
                    ctx.child("crasher").spawnOn(1, c -> {
                        c.sleep(Duration.ofMillis(1));
                        throw sim.crash();
                    });
                    try {
                        ctx.sleep(Duration.ofSeconds(1));
                    } finally {
                        // Runs after the crash, as the task is aborted: nothing here may persist.
                        try {
                            blob.writeAt(0, bytes("after the crash")).await();
                            blob.sync().await();
                            seenAfterCrash.add("wrote");
                        } catch (LockstepException refused) {
                            seenAfterCrash.add(refused.getClass().getSimpleName());
                        }
                        try {
                            ctx.open("p", "new").await().blob().close();
                            seenAfterCrash.add("opened");
                        } catch (LockstepException refused) {
                            seenAfterCrash.add(refused.getClass().getSimpleName());
                        }
                        blob.close();
                    }
                    return null;
                });
        assertTrue(recovered.outcome().crashed());
        assertEquals(List.of("ClosedException", "ClosedException"), seenAfterCrash,
                "an aborted task's I/O fails; what it might have done reaches no checkpoint");
        recovered.checkpoint().storage().files().forEach((path, contents) ->
                assertFalse(new String(contents, StandardCharsets.UTF_8).contains("after"), path));
    }

    @Test
    void theSeededCrashPointCutsTheRunAtASeededTime() {
        Set<Long> crashTimes = new HashSet<>();
        for (long seed = 1; seed <= 8; seed++) {
            SimConfig config = SimConfig.builder().seed(seed).crashWithin(Duration.ofSeconds(10)).build();
            Recovered<Object> first = SimRunner.of(config).startAndRecover(RecoveryTest::tickForever);
            Recovered<Object> again = SimRunner.of(config).startAndRecover(RecoveryTest::tickForever);
            assertTrue(first.outcome().crashed());
            assertTrue(first.checkpoint().reason().contains("seeded crash point"), first.checkpoint().reason());
            assertEquals(first.checkpoint().clockNanos(), again.checkpoint().clockNanos());
            assertEquals(first.checkpoint().digest(), again.checkpoint().digest());
            long elapsed = first.checkpoint().clockNanos() - config.startNanos();
            assertTrue(elapsed >= 0 && elapsed <= Duration.ofSeconds(10).toNanos(), "crash after " + elapsed);
            crashTimes.add(first.checkpoint().clockNanos());
        }
        assertTrue(crashTimes.size() >= 7, "seeds pick different crash points: " + crashTimes);
    }

    private static Object tickForever(Context ctx) {
        while (true) {
            ctx.sleep(Duration.ofMillis(50));
        }
    }

    @Test
    void aServerWaitingForeverIsCutByTheCrashPointNotReportedAsStalled() {
        SimConfig config = SimConfig.builder().seed(16).crashWithin(Duration.ofSeconds(1)).build();
        Recovered<Object> recovered = SimRunner.of(config).startAndRecover(ctx -> {
            try (dev.lockstep.Listener listener = ctx.bind(new java.net.InetSocketAddress("127.0.0.1", 80)).await()) {
                return listener.accept().await();
            }
        });
        assertTrue(recovered.outcome().crashed());
    }

    @Test
    void faultConfigurationChangedDuringARunCarriesOver() {
        StorageFaults faults = StorageFaults.builder().syncRate(1).build();
        Recovered<Void> first = SimRunner.of(SimConfig.builder().seed(17).build()).startAndRecover(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            sim.storageFaults(faults);
            sim.crashPolicy(CrashPolicy.SUBSET);
            sim.networkConfig(NetworkConfig.DEFAULT.withBreakRate(0.5));
            throw sim.crash();
        });
        SimConfig carried = first.checkpoint().config();
        assertEquals(faults, carried.storageFaults());
        assertEquals(CrashPolicy.SUBSET, carried.crashPolicy());
        assertEquals(0.5, carried.network().breakRate());
        assertEquals(17, first.checkpoint().origin().seed());
        SimRunner.from(first.checkpoint()).startAndRecover(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            assertEquals(faults, sim.storageFaults());
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                blob.writeAt(0, bytes("x")).await();
                assertThrows(StorageIoException.class, () -> blob.sync().await());
            }
            return null;
        });
    }

    @Test
    void aFailureInAResumedRunReplaysTheWholeLoop() {
        Checkpoint checkpoint = SimRunner.of(SimConfig.builder().seed(18).build())
                .startAndRecover(ctx -> null).checkpoint();
        SimRunner resumed = SimRunner.from(checkpoint);
        SimulationFailure stalled = assertThrows(SimulationFailure.class, () -> resumed.start(ctx -> {
            try (dev.lockstep.Signal signal = ctx.stopped()) {
                return signal.await();
            }
        }));
        assertTrue(stalled.getMessage().contains("run 2 of the startAndRecover loop"), stalled.getMessage());
        assertEquals(18, stalled.config().seed());
    }

    // ------------------------------------------------------------------------------ crash consistency loop

    /** What the test knows of one blob: its durable bytes, and the writes issued since they were read or synced. */
    private static final class BlobModel {
        byte[] durable = new byte[0];
        /** Bytes as the page cache should hold them if every issued write completed. */
        byte[] live = new byte[0];
        final List<long[]> pendingRanges = new ArrayList<>();
        final List<byte[]> pendingData = new ArrayList<>();
        /**
         * A sync failed since the last known durable state: on Linux its writeback may have put any of the
         * pending writes on the disk, whole or in part, so even {@link CrashPolicy#ALL_LOST} may recover them.
         */
        boolean syncFailed;

        void issued(long offset, byte[] data) {
            pendingRanges.add(new long[] {offset, data.length});
            pendingData.add(data.clone());
            int end = (int) offset + data.length;
            if (end > live.length) {
                live = java.util.Arrays.copyOf(live, end);
            }
            System.arraycopy(data, 0, live, (int) offset, data.length);
        }

        void synced(byte[] snapshotOfLive) {
            durable = snapshotOfLive;
            syncFailed = false;
            pendingRanges.clear();
            pendingData.clear();
        }

        /** Checks recovered bytes: every durable byte intact unless a pending write covers it; nothing invented. */
        String check(byte[] recovered, CrashPolicy policy) {
            if (policy == CrashPolicy.ALL_LOST && !syncFailed && !java.util.Arrays.equals(recovered, durable)) {
                return "ALL_LOST must recover exactly the synced bytes: " + durable.length + " synced bytes, "
                        + recovered.length + " recovered, first difference at byte "
                        + java.util.Arrays.mismatch(durable, recovered);
            }
            long maxEnd = durable.length;
            for (long[] range : pendingRanges) {
                maxEnd = Math.max(maxEnd, range[0] + range[1]);
            }
            if (recovered.length < durable.length || recovered.length > maxEnd) {
                return "length " + recovered.length + " outside [" + durable.length + ", " + maxEnd + "]";
            }
            for (int position = 0; position < recovered.length; position++) {
                boolean allowed = position < durable.length ? recovered[position] == durable[position]
                        : recovered[position] == 0;
                for (int w = 0; w < pendingRanges.size() && !allowed; w++) {
                    long[] range = pendingRanges.get(w);
                    if (position >= range[0] && position < range[0] + range[1]) {
                        allowed = recovered[position] == pendingData.get(w)[(int) (position - range[0])];
                    }
                }
                if (!allowed) {
                    return "byte " + position + " = " + recovered[position] + " is neither synced nor written";
                }
            }
            return null;
        }
    }

    @Test
    void loopsOfUncleanRestartsKeepEverySyncedByte() {
        int runs = 0;
        for (CrashPolicy policy : CrashPolicy.values()) {
            for (long seed = 1; seed <= 6; seed++) {
                runs += restartLoop(seed * 101 + policy.ordinal(), policy);
            }
        }
        assertTrue(runs >= 18 * 5, "every loop ran all its restarts: " + runs);
    }

    private static int restartLoop(long seed, CrashPolicy policy) {
        SimConfig config = SimConfig.builder().seed(seed).workers(2).crashPolicy(policy)
                .crashWithin(Duration.ofMillis(40))
                .storageFaults(StorageFaults.builder().syncRate(0.1).build())
                .build();
        TreeMap<String, BlobModel> models = new TreeMap<>();
        Checkpoint checkpoint = null;
        String previousDigest = null;
        int runs = 0;
        for (int restart = 0; restart < 6; restart++) {
            SimRunner runner = checkpoint == null ? SimRunner.of(config) : SimRunner.from(checkpoint);
            Recovered<Void> recovered = runner.startAndRecover(ctx -> {
                verify(ctx, models, policy, seed);
                SimControl sim = SimRunner.control(ctx);
                RandomGenerator random = sim.random();
                List<dev.lockstep.Handle<Void>> writers = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    String name = "blob" + w;
                    BlobModel model = models.computeIfAbsent(name, ignored -> new BlobModel());
                    writers.add(ctx.child("writer" + w).spawnOn(w, c -> write(c, name, model, random)));
                }
                for (dev.lockstep.Handle<Void> writer : writers) {
                    writer.await();
                }
                if (Math.floorMod(random.nextLong(), 2) == 0) {
                    throw sim.crash();
                }
                return null;
            });
            if (recovered.outcome() instanceof Outcome.Failed<Void> failed) {
                throw new AssertionError("seed " + seed + ", " + policy + ", run " + (restart + 1) + " failed",
                        failed.failure());
            }
            checkpoint = recovered.checkpoint();
            assertEquals(restart + 1, checkpoint.restarts());
            assertNotEquals(previousDigest, checkpoint.digest());
            previousDigest = checkpoint.digest();
            runs++;
        }
        // The last crash is checked too.
        SimRunner.from(checkpoint).start(ctx -> {
            verify(ctx, models, policy, seed);
            return null;
        });
        return runs;
    }

    private static void verify(Context ctx, TreeMap<String, BlobModel> models, CrashPolicy policy, long seed) {
        SimControl sim = SimRunner.control(ctx);
        StorageFaults faults = sim.storageFaults();
        sim.storageFaults(StorageFaults.NONE); // verification must not fail on an injected fault
        for (var entry : models.entrySet()) {
            BlobModel model = entry.getValue();
            OpenedBlob opened = ctx.open("data", entry.getKey()).await();
            try (Blob blob = opened.blob()) {
                byte[] recovered = blob.readAt(0, (int) opened.length()).await();
                String problem = model.check(recovered, policy);
                assertNull(problem, "seed " + seed + ", " + policy + ", " + entry.getKey() + ": " + problem);
                // What a run finds is durable (the runner syncs its storage before the task starts).
                model.live = recovered.clone();
                model.synced(recovered);
            }
        }
        sim.storageFaults(faults);
    }

    private static Void write(Context ctx, String name, BlobModel model, RandomGenerator random) {
        Blob blob;
        try {
            blob = ctx.open("data", name).await().blob();
        } catch (StorageIoException failedCreate) {
            return null; // creating a blob syncs it, and syncs fail here at 10%
        }
        try (blob) {
            for (int i = 0; i < 12; i++) {
                int offset = Math.floorMod(random.nextLong(), 600);
                byte[] data = new byte[1 + Math.floorMod(random.nextLong(), 700)];
                for (int b = 0; b < data.length; b++) {
                    data[b] = (byte) (1 + Math.floorMod(random.nextLong(), 255));
                }
                model.issued(offset, data);
                blob.writeAt(offset, data).await();
                if (Math.floorMod(random.nextLong(), 3) == 0) {
                    byte[] snapshot = model.live.clone();
                    try {
                        blob.sync().await();
                        model.synced(snapshot);
                    } catch (StorageIoException failedSync) {
                        // Not acknowledged, and the open is poisoned (Blob's contract): a later sync could succeed
                        // without these writes. The writes stay pending, uncertain; this writer stops.
                        model.syncFailed = true;
                        return null;
                    }
                }
                ctx.sleep(Duration.ofMillis(1 + Math.floorMod(random.nextLong(), 3)));
            }
        } catch (ClosedException crashed) {
            // The machine crashed under this writer.
        }
        return null;
    }
}
