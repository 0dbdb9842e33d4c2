package dev.lockstep.demo.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.Outcome;
import dev.lockstep.sim.Recovered;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link KvOptions.Durability#SYNC_EVERY_SECOND} when syncs are slow: what a crash may lose, and a close while the
 * syncer's sync is in flight. Every request that waits (a sync among them) takes exactly the latency each test
 * gives, and the others complete at submission, so the syncer's syncs run as long as the test says.
 */
class KvStoreEverySecondTest {
    private static final KvOptions EVERY_SECOND = KvOptions.defaults("kv")
            .withDurability(KvOptions.Durability.SYNC_EVERY_SECOND);

    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static SimConfig slowSyncs(long seed, long syncNanos, int workers) {
        KernelBehavior kernel = KernelBehavior.DEFAULT.withInlineCompletionRate(1).withLatency(syncNanos, syncNanos);
        return SimConfig.builder().seed(seed).workers(workers).kernelBehavior(kernel).crashPolicy(CrashPolicy.ALL_LOST)
                .failOnLeaks(false).build();
    }

    @Test
    void closeDuringASlowSyncWaitsForTheSyncerToEnd() {
        SimRunner.of(slowSyncs(11, 2_000_000_000L, 1)).start(ctx -> {
            KvStore store = KvStore.open(ctx, EVERY_SECOND);
            store.put(b("a"), b("1"));
            // The syncer's first sync starts a second after the store opened and runs for two seconds.
            ctx.sleep(Duration.ofMillis(1_100));
            assertEquals(0, store.stats().syncs(), "the first sync is in flight");
            store.close();
            assertTrue(store.syncerEnded(), "close returned while the syncer still ran");
            long syncs = store.stats().syncs();
            ctx.sleep(Duration.ofSeconds(5));
            assertEquals(syncs, store.stats().syncs(), "nothing synced after close");
            assertThrows(StoreUnavailableException.class, () -> store.put(b("b"), b("2")));
            store.close(); // idempotent
            return null;
        });
    }

    /** A put its writer saw acknowledged, and the count of completed syncs it read right after. */
    private record Acked(String key, long syncsAfterAck) {
    }

    /** What a run saw before its crash. */
    private record BeforeCrash(List<Acked> acked, long syncs, long rolled) {
    }

    @Test
    void aCrashLosesAtMostTwoSecondsOfAcknowledgedPutsWhenSyncsTakeSeconds() {
        // Syncs take three seconds: without holding writes behind a lagging sync, a crash would lose every put
        // acknowledged during the whole last sync and the second before it.
        for (long seed = 1; seed <= 3; seed++) {
            crashAndCheckTheBound(seed, EVERY_SECOND, 3_000_000_000L, 1);
        }
    }

    @Test
    void aCrashLosesAtMostTwoSecondsOfAcknowledgedPutsWhileSmallSegmentsRollDuringSyncs() {
        // Two workers, a writer on each; segments of 4 KiB roll about once a second of puts, each roll syncing in the
        // commit's turn while the syncer's own sync of the same segment may be in flight; syncs take 100 ms.
        for (long seed = 4; seed <= 6; seed++) {
            crashAndCheckTheBound(seed, EVERY_SECOND.withSegmentBytes(4096), 100_000_000L, 2);
        }
    }

    /**
     * A writer on each of the simulation's workers puts every 10 ms, so at most 100 puts per writer are
     * acknowledged per second; the power goes at a time drawn from the seed. Every put acknowledged before a sync started survives once that sync completed: a put whose
     * writer read {@code n} completed syncs after its acknowledgement is covered by sync {@code n + 2} at the latest
     * (sync {@code n + 1} may have started before it). And the acknowledged puts lost are at most two seconds' worth.
     */
    private static void crashAndCheckTheBound(long seed, KvOptions options, long syncNanos, int workers) {
        long crashAfterMillis = 9_000 + seed * 731 % 3_000;
        Recovered<BeforeCrash> first = SimRunner.of(slowSyncs(seed, syncNanos, workers)).startAndRecover(ctx -> {
            KvStore store = KvStore.open(ctx, options);
            // The writers add to the list and the root copies it: the simulator runs every simulated worker's
            // fibers on one thread, one step at a time.
            List<Acked> acked = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int writer = w;
                ctx.child("writer" + w).spawnOn(w, c -> {
                    for (int i = 0; ; i++) {
                        String key = "w" + writer + "-" + i;
                        store.put(b(key), b("v" + key));
                        acked.add(new Acked(key, store.stats().syncs()));
                        c.sleep(Duration.ofMillis(10));
                    }
                });
            }
            ctx.sleep(Duration.ofMillis(crashAfterMillis));
            KvStore.Stats stats = store.stats();
            return new BeforeCrash(List.copyOf(acked), stats.syncs(), stats.segmentsRolled());
        });
        if (first.outcome() instanceof Outcome.Failed<BeforeCrash> failed) {
            throw new AssertionError("seed " + seed + ": the run before the crash failed", failed.failure());
        }
        BeforeCrash before = ((Outcome.Completed<BeforeCrash>) first.outcome()).value();
        assertTrue(before.syncs() >= 2, "seed " + seed + ": " + before);
        int lost = SimRunner.from(first.checkpoint()).start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                int missing = 0;
                for (Acked put : before.acked()) {
                    byte[] value = store.get(b(put.key()));
                    if (put.syncsAfterAck() + 2 <= before.syncs()) {
                        assertArrayEquals(b("v" + put.key()), value, "seed " + seed + ": put " + put
                                + " was acknowledged before a sync that completed started; syncs before the crash: "
                                + before.syncs());
                    }
                    if (value == null) {
                        missing++;
                    } else {
                        assertArrayEquals(b("v" + put.key()), value);
                    }
                }
                return missing;
            }
        });
        assertTrue(lost <= workers * (2 * 100 + 2), "seed " + seed + ": " + lost + " acknowledged puts of "
                + before.acked().size() + " lost, more than two seconds of them (" + before.syncs() + " syncs)");
    }
}
