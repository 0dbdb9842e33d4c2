package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link SimNode#crashAt}: a node armed for an I/O boundary loses power exactly there; and fail-stop nodes
 * ({@link SimNode#failStop}, {@link SimCluster#failStop}).
 */
class NodeIoBoundaryTest {
    private static final int ENTRY = 8;

    /** What the syncing node did; node tasks and the controller share the simulator's one thread. */
    static final class Seen {
        long recovered = -1;
        /** The entry whose sync was asked for last. */
        long syncing;
        /** The entry whose sync returned last. */
        long synced;
    }

    /** Appends entry i, then syncs it, then sleeps a millisecond; on start, counts what its disk kept. */
    private static Task<Void> syncingNode(Seen seen) {
        return ctx -> {
            OpenedBlob opened = ctx.open("log", "entries").await();
            try (Blob log = opened.blob()) {
                long count = opened.length() / ENTRY;
                seen.recovered = count;
                seen.syncing = count;
                seen.synced = count;
                for (long i = count; ; i++) {
                    log.writeAt(i * ENTRY, ByteBuffer.allocate(ENTRY).putLong(i).array()).await();
                    seen.syncing = i + 1;
                    log.sync().await();
                    seen.synced = i + 1;
                    ctx.sleep(Duration.ofMillis(1));
                }
            }
        };
    }

    private static void awaitFirstSync(dev.lockstep.Context ctx, Seen seen) {
        for (int waited = 0; seen.synced < 1; waited++) {
            assertTrue(waited < 1000, "the node synced nothing in a simulated second");
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    private static SimRunner runner(long seed) {
        return SimRunner.of(SimConfig.builder().seed(seed).workers(1)
                .kernelBehavior(KernelBehavior.DEFAULT.withLatency(10_000, 2_000_000)).build());
    }

    private static String crashAt(long seed, SimNode.IoBoundary boundary, Seen seen) {
        SimRunner runner = runner(seed);
        runner.start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            SimNode node = cluster.start(syncingNode(seen));
            awaitFirstSync(ctx, seen); // opening the blob syncs its directories: armed earlier, it fires there
            ctx.sleep(Duration.ofNanos(seed * 337_000));
            node.crashAt(boundary);
            assertEquals(boundary, node.armed());
            ctx.sleep(Duration.ofMillis(20));
            assertEquals(SimNode.State.DOWN, node.state(), "the armed crash fired");
            assertNull(node.armed(), "firing disarms");
            long syncing = seen.syncing;
            long synced = seen.synced;
            assertEquals(synced + 1, syncing, "the node was inside a sync when it lost power");
            seen.recovered = -1;
            node.restart();
            for (int waited = 0; seen.recovered < 0; waited++) {
                assertTrue(waited < 1000, "the restarted node recovered nothing in a simulated second");
                ctx.sleep(Duration.ofMillis(1));
            }
            long expected = boundary == SimNode.IoBoundary.SYNC_DONE ? syncing : synced;
            assertEquals(expected, seen.recovered, boundary + ": entries the disk kept (syncing " + syncing
                    + ", synced " + synced + ")");
            return null;
        });
        return runner.digest();
    }

    @Test
    void aCrashArmedForASyncInFlightComesBeforeTheSyncAppliesAndTheTaskNeverLearnsIt() {
        for (long seed = 1; seed <= 6; seed++) {
            crashAt(seed, SimNode.IoBoundary.SYNC_IN_FLIGHT, new Seen());
        }
    }

    @Test
    void aCrashArmedForASyncDoneKeepsTheSyncedDataButTheTaskNeverLearnsIt() {
        for (long seed = 1; seed <= 6; seed++) {
            crashAt(seed, SimNode.IoBoundary.SYNC_DONE, new Seen());
        }
    }

    @Test
    void theSameSeedArmsAndFiresAtTheSameStep() {
        for (long seed = 1; seed <= 3; seed++) {
            assertEquals(crashAt(seed, SimNode.IoBoundary.SYNC_IN_FLIGHT, new Seen()),
                    crashAt(seed, SimNode.IoBoundary.SYNC_IN_FLIGHT, new Seen()), "seed " + seed);
        }
    }

    @Test
    void aDisarmedNodeKeepsRunningAndACallTheStateDoesNotAllowIsTyped() {
        Seen seen = new Seen();
        runner(4).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            SimNode node = cluster.start(syncingNode(seen));
            awaitFirstSync(ctx, seen);
            node.crashAt(SimNode.IoBoundary.SYNC_IN_FLIGHT);
            assertEquals(SimNode.IoBoundary.SYNC_IN_FLIGHT, node.disarm());
            ctx.sleep(Duration.ofMillis(10));
            assertEquals(SimNode.State.RUNNING, node.state());
            assertTrue(seen.synced >= 4, "it went on syncing: " + seen.synced);
            node.kill();
            NodeStateException refused = assertThrows(NodeStateException.class,
                    () -> node.crashAt(SimNode.IoBoundary.SYNC_DONE));
            assertTrue(refused.getMessage().contains("crashAt()"), refused.getMessage());
            assertEquals(0, node.syncsInFlight());
            return null;
        });
    }

    @Test
    void aFailStopNodeWhoseMainTaskThrowsGoesDownInsteadOfFailingTheRunAndRestarts() {
        int[] lifetimes = {0};
        runner(5).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            cluster.failStop(true);
            SimNode node = cluster.start(c -> {
                lifetimes[0]++;
                c.sleep(Duration.ofMillis(1));
                throw new IllegalStateException("checksum mismatch in lifetime " + lifetimes[0]);
            });
            cluster.failStop(false);
            SimNode other = cluster.start(c -> {
                c.sleep(Duration.ofDays(1));
                return null;
            });
            assertTrue(node.failStops());
            assertTrue(!other.failStops(), "the cluster's setting holds for nodes started after it");
            ctx.sleep(Duration.ofMillis(5));
            assertEquals(SimNode.State.DOWN, node.state());
            assertEquals("checksum mismatch in lifetime 1", node.failure().getMessage());
            assertEquals(SimNode.State.RUNNING, other.state(), "the other node is not disturbed");
            node.restart();
            assertNull(node.failure(), "a restart clears it");
            ctx.sleep(Duration.ofMillis(5));
            assertEquals(2, node.lifetime());
            assertEquals(SimNode.State.DOWN, node.state());
            assertEquals("checksum mismatch in lifetime 2", node.failure().getMessage());
            return null;
        });
    }
}
