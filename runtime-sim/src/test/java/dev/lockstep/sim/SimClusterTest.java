package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.TimeoutException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Simulated cluster nodes: each its own disk, clock, workers and address; crashed, killed, paused on its own. */
class SimClusterTest {

    private static SimRunner runner(long seed) {
        return SimRunner.of(SimConfig.builder().seed(seed).workers(1).build());
    }

    /** Three log nodes; node 2 crashes mid-load, the others keep serving, node 2 recovers from its own disk. */
    private static String crashOneOfThree(long seed) {
        LogNode.Observed[] seen = {new LogNode.Observed(), new LogNode.Observed(), new LogNode.Observed()};
        SimRunner runner = runner(seed);
        runner.start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            for (LogNode.Observed node : seen) {
                cluster.start(LogNode.main(node, 4, Long.MAX_VALUE));
            }
            ctx.sleep(Duration.ofMillis(30));
            SimNode victim = cluster.node(2);
            LogNode.Counts before1 = LogNode.read(ctx, cluster.node(1).address());
            LogNode.Counts before3 = LogNode.read(ctx, cluster.node(3).address());
            assertTrue(LogNode.read(ctx, victim.address()).written() > 0, "node 2 served before the crash");
            long syncedAtCrash = seen[1].synced;
            long writtenAtCrash = seen[1].written;
            victim.crash();
            assertEquals(SimNode.State.DOWN, victim.state());

            ctx.sleep(Duration.ofMillis(20));
            assertThrows(ConnectionFailedException.class, () -> LogNode.read(ctx, victim.address()),
                    "a crashed node refuses connections");
            assertTrue(LogNode.read(ctx, cluster.node(1).address()).written() > before1.written(),
                    "node 1 keeps serving and writing");
            assertTrue(LogNode.read(ctx, cluster.node(3).address()).written() > before3.written(),
                    "node 3 keeps serving and writing");
            assertEquals(writtenAtCrash, seen[1].written, "nothing of node 2 ran after its crash");

            victim.restart();
            ctx.sleep(Duration.ofMillis(10));
            assertEquals(2, victim.lifetime());
            assertEquals(SimNode.State.RUNNING, victim.state());
            // Exactly what its durability promised: every synced entry, no entry the crash policy (all unsynced
            // data lost) should have dropped, each entry intact.
            long recovered = seen[1].recovered;
            assertTrue(recovered >= syncedAtCrash && recovered <= writtenAtCrash && recovered % 4 == 0,
                    "node 2 recovered " + recovered + " entries; synced " + syncedAtCrash + ", written "
                            + writtenAtCrash);
            assertFalse(seen[1].corrupt, "node 2's recovered entries hold their numbers");
            assertTrue(LogNode.read(ctx, victim.address()).written() > recovered, "node 2 serves again");
            assertEquals(1, seen[0].lifetimes);
            assertEquals(1, seen[2].lifetimes);
            return null;
        });
        return runner.digest();
    }

    @Test
    void crashingOneNodeOfThreeLeavesTheOthersServingAndItRecoversFromItsOwnDisk() {
        crashOneOfThree(1);
    }

    @Test
    void theSameSeedRunsTheSameClusterAndDigest() {
        Set<String> digests = new TreeSet<>();
        for (long seed = 1; seed <= 4; seed++) {
            String first = crashOneOfThree(seed);
            assertEquals(first, crashOneOfThree(seed), "seed " + seed + " ran two ways");
            digests.add(first);
        }
        assertEquals(4, digests.size(), "four seeds, four runs: " + digests);
    }

    /** A kill keeps the page cache, a crash does not: ten entries written, eight synced. */
    @Test
    void aKillKeepsWhatWasWrittenACrashOnlyWhatWasSynced() {
        LogNode.Observed killed = new LogNode.Observed();
        LogNode.Observed crashed = new LogNode.Observed();
        runner(3).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            SimNode one = cluster.start(LogNode.main(killed, 4, 10));
            SimNode two = cluster.start(LogNode.main(crashed, 4, 10));
            ctx.sleep(Duration.ofMillis(50));
            assertEquals(10, killed.written);
            assertEquals(8, killed.synced);
            one.kill();
            two.crash();
            one.restart();
            two.restart();
            ctx.sleep(Duration.ofMillis(5));
            assertEquals(10, killed.recovered, "killed: the page cache survived");
            assertEquals(8, crashed.recovered, "crashed: only what was synced survived");
            assertFalse(killed.corrupt || crashed.corrupt);
            return null;
        });
    }

    /** What a kill kept unsynced is durable once the next lifetime started: a crash after it keeps all ten. */
    @Test
    void whatAKillKeptSurvivesACrashAfterTheRestart() {
        LogNode.Observed killed = new LogNode.Observed();
        runner(3).start(ctx -> {
            SimNode one = SimCluster.of(ctx).start(LogNode.main(killed, 4, 10));
            ctx.sleep(Duration.ofMillis(50));
            assertEquals(8, killed.synced);
            one.kill();
            one.restart();
            ctx.sleep(Duration.ofMillis(5));
            assertEquals(10, killed.recovered);
            one.crash();
            one.restart();
            ctx.sleep(Duration.ofMillis(5));
            assertEquals(10, killed.recovered, "the restart after the kill synced what the page cache kept");
            assertFalse(killed.corrupt);
            return null;
        });
    }

    @Test
    void aPausedNodeNeitherRunsNorServesUntilResumedWhileTheOthersGoOn() {
        LogNode.Observed[] seen = {new LogNode.Observed(), new LogNode.Observed()};
        runner(5).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            SimNode paused = cluster.start(LogNode.main(seen[0], 4, Long.MAX_VALUE));
            SimNode other = cluster.start(LogNode.main(seen[1], 4, Long.MAX_VALUE));
            ctx.sleep(Duration.ofMillis(10));
            paused.pause();
            assertEquals(SimNode.State.PAUSED, paused.state());
            long written = seen[0].written;
            long otherWritten = seen[1].written;
            ctx.sleep(Duration.ofMillis(20));
            assertEquals(written, seen[0].written, "a paused node runs nothing");
            assertTrue(seen[1].written > otherWritten, "the other node goes on");
            assertThrows(TimeoutException.class,
                    () -> ctx.timeout(Duration.ofMillis(10), () -> LogNode.read(ctx, paused.address())),
                    "a paused node does not answer");
            paused.resume();
            assertEquals(SimNode.State.RUNNING, paused.state());
            assertTrue(LogNode.read(ctx, paused.address()).written() >= written, "it answers once resumed");
            ctx.sleep(Duration.ofMillis(5));
            assertTrue(seen[0].written > written, "and writes again");
            paused.pause();
            paused.crash(); // a stopped process loses power like any other
            assertEquals(SimNode.State.DOWN, paused.state());
            return null;
        });
    }

    @Test
    void aNodesClockSkewIsSeenByThatNodeAlone() {
        int[] ticks = new int[3];
        Instant[] lastRead = new Instant[3];
        runner(7).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            List<SimNode> nodes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int index = i;
                nodes.add(cluster.start(c -> {
                    while (true) {
                        c.sleep(Duration.ofMillis(10));
                        ticks[index]++;
                        lastRead[index] = c.now();
                    }
                }));
            }
            nodes.get(0).driftClock(100_000);                 // 10 % fast
            nodes.get(1).stepClock(Duration.ofHours(1));      // an hour ahead
            Instant start = ctx.now();
            ctx.sleep(Duration.ofSeconds(1));
            Instant end = ctx.now();
            long slept = Duration.between(start, end).toMillis();
            assertEquals(1000, slept, "the controller's clock is its own");
            assertTrue(ticks[0] >= 108 && ticks[0] <= 111, "10 ms sleeps on a clock 10 % fast: " + ticks[0]);
            assertTrue(ticks[1] >= 99 && ticks[1] <= 100, "a stepped clock sleeps at the normal rate: " + ticks[1]);
            assertTrue(ticks[2] >= 99 && ticks[2] <= 100, "an untouched clock: " + ticks[2]);
            long ahead0 = Duration.between(end, nodes.get(0).clockNow()).toMillis();
            long ahead1 = Duration.between(end, nodes.get(1).clockNow()).toMillis();
            assertEquals(100, ahead0, "node 1 gained 10 % of a second");
            assertEquals(3_600_000, ahead1, "node 2 is an hour ahead");
            assertEquals(end, nodes.get(2).clockNow());
            assertTrue(Duration.between(end, lastRead[1]).toMinutes() >= 59, "node 2's tasks read its clock");
            assertTrue(Duration.between(lastRead[2], end).toMillis() <= 10, "node 3's tasks read the common time");

            // A step back holds the node's wall clock still until it catches up: what its tasks read never goes
            // back. Its sleeps run on its monotonic clock, which the step does not move: they keep ticking.
            Instant beforeStep = nodes.get(2).clockNow();
            int ticksBeforeStep = ticks[2];
            nodes.get(2).stepClock(Duration.ofMillis(-500));
            ctx.sleep(Duration.ofMillis(300));
            assertTrue(ticks[2] - ticksBeforeStep >= 29, "sleeps go on through a step back: " + ticksBeforeStep
                    + " ticks before it, " + ticks[2] + " after 300 ms");
            assertEquals(beforeStep, lastRead[2], "the wall clock stands still while it catches up");
            ctx.sleep(Duration.ofMillis(300));
            assertTrue(lastRead[2].isAfter(beforeStep), "it goes on once caught up, from where it was: "
                    + lastRead[2] + " after " + beforeStep);
            assertThrows(IllegalArgumentException.class, () -> nodes.get(0).driftClock(100_001));
            return null;
        });
    }

    @Test
    void aNodeHasItsOwnAddressWorkersAndDisk() {
        String[] seen = new String[4];
        runner(9).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            SimNode first = cluster.start(2, c -> {
                seen[0] = String.valueOf(c.workers());
                try (Listener listener = c.bind(new InetSocketAddress(LogNode.PORT)).await()) {
                    seen[1] = listener.localAddress().toString();
                    Handle<String> other = c.child("second").spawnOn(1, d -> "on worker 1");
                    seen[2] = other.await();
                }
                c.open("p", "only-mine").await().blob().close();
                return null;
            });
            SimNode second = cluster.start(c -> {
                c.sleep(Duration.ofMillis(1)); // after node 1 made its blob
                try {
                    c.scan("p").await();
                    seen[3] = "node 2 sees partition p";
                } catch (PartitionMissingException expected) {
                    seen[3] = "missing";
                }
                return null;
            });
            ctx.sleep(Duration.ofMillis(5));
            assertEquals(SimNode.State.EXITED, first.state());
            assertEquals(SimNode.State.EXITED, second.state());
            assertEquals(2, first.workers());
            return null;
        });
        assertEquals("2", seen[0]);
        assertEquals("/10.0.0.1:" + LogNode.PORT, seen[1]);
        assertEquals("on worker 1", seen[2]);
        assertEquals("missing", seen[3], "node 2's disk does not have node 1's partition");
    }

    @Test
    void badNodeIdsAndCallsTheStateDoesNotAllowAreTyped() {
        runner(11).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            UnknownNodeException none = assertThrows(UnknownNodeException.class, () -> cluster.node(1));
            assertEquals("no node 1 in this cluster: it has no nodes yet", none.getMessage());
            SimNode node = cluster.start(c -> {
                c.sleep(Duration.ofDays(1));
                return null;
            });
            UnknownNodeException four = assertThrows(UnknownNodeException.class, () -> cluster.node(4));
            assertEquals(4, four.id());
            assertEquals("no node 4 in this cluster: its nodes are 1 to 1", four.getMessage());
            assertThrows(UnknownNodeException.class, () -> cluster.node(0));
            assertThrows(IllegalArgumentException.class, () -> cluster.start(0, c -> null));
            NodeStateException running = assertThrows(NodeStateException.class, node::restart);
            assertEquals("node 1 is RUNNING: restart() needs a node that is down or exited", running.getMessage());
            assertThrows(NodeStateException.class, node::resume);
            node.kill();
            NodeStateException down = assertThrows(NodeStateException.class, node::pause);
            assertEquals(SimNode.State.DOWN, down.state());
            assertThrows(NodeStateException.class, node::crash);
            return null;
        });
    }

    @Test
    void aNodesMainTaskThatThrowsFailsTheRunNamingTheNode() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> runner(13).start(ctx -> {
            SimCluster.of(ctx).start(c -> {
                c.sleep(Duration.ofMillis(1));
                throw new IllegalStateException("replica diverged");
            });
            ctx.sleep(Duration.ofSeconds(1));
            return null;
        }));
        assertTrue(failure.getMessage().contains("node 1's main task failed in lifetime 1")
                && failure.getMessage().contains("replica diverged"), failure.getMessage());
    }

    @Test
    void aRecoverRunHasNoCluster() {
        String[] refused = new String[1];
        SimRunner.of(SimConfig.builder().seed(1).build()).startAndRecover(ctx -> {
            refused[0] = assertThrows(IllegalStateException.class, () -> SimCluster.of(ctx)).getMessage();
            return null;
        });
        assertTrue(refused[0].startsWith("SimCluster needs a run of SimRunner.start"), refused[0]);
    }
}
