package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link SimNode.IoBoundary#ANSWERED}: a node armed for it loses power as soon as an asker has received its answer
 * to a request, so a node that answers before its data is durable loses what it acknowledged, and one that syncs
 * first loses nothing.
 */
class NodeAnswerBoundaryTest {
    private static final int PORT = 7000;

    /** What the counter node recovered at its last start; node tasks and the controller share one thread. */
    static final class Seen {
        long recovered = -1;
        int answers;
    }

    /**
     * A counter served over the network: each one-byte request adds one, writes the count and answers it; synced
     * before the answer, or (the bug) never.
     */
    private static Task<Void> counterNode(InetSocketAddress address, boolean syncBeforeAnswer, Seen seen) {
        return ctx -> {
            OpenedBlob opened = ctx.open("counter", "value").await();
            try (Blob blob = opened.blob(); Listener listener = ctx.bind(address).await()) {
                long count = opened.length() < Long.BYTES ? 0
                        : ByteBuffer.wrap(blob.readAt(0, Long.BYTES).await()).getLong();
                seen.recovered = count;
                while (true) {
                    try (Connection asker = listener.accept().await()) {
                        asker.stream().recv(1).await();
                        count++;
                        blob.writeAt(0, ByteBuffer.allocate(Long.BYTES).putLong(count).array()).await();
                        if (syncBeforeAnswer) {
                            blob.sync().await();
                        }
                        asker.sink().send(ByteBuffer.allocate(Long.BYTES).putLong(count).array()).await();
                        seen.answers++;
                    }
                }
            }
        };
    }

    /** Waits until the counter node has recovered its count and listens. */
    private static void awaitListening(Context ctx, Seen seen) {
        for (int waited = 0; seen.recovered < 0; waited++) {
            assertTrue(waited < 1000, "the counter node did not listen within a simulated second");
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    private static long increment(Context ctx, InetSocketAddress node) {
        try (Connection connection = ctx.dial(node).await()) {
            connection.sink().send(new byte[] {1}).await();
            return ByteBuffer.wrap(connection.stream().recv(Long.BYTES).await()).getLong();
        }
    }

    /** Runs {@code seed}: three answers, then the node armed for ANSWERED and one more; returns acknowledged, kept. */
    private static long[] acknowledgedAndKept(long seed, boolean syncBeforeAnswer) {
        Seen seen = new Seen();
        long[] result = new long[2];
        SimRunner.of(SimConfig.builder().seed(seed).workers(1).crashPolicy(CrashPolicy.ALL_LOST).build()).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            InetSocketAddress address = new InetSocketAddress(SimCluster.address(1), PORT);
            SimNode node = cluster.start(counterNode(address, syncBeforeAnswer, seen));
            awaitListening(ctx, seen);
            for (int i = 0; i < 3; i++) {
                increment(ctx, address);
            }
            assertEquals(SimNode.State.RUNNING, node.state(), "nothing armed, nothing fired");
            node.crashAt(SimNode.IoBoundary.ANSWERED);
            long acknowledged = increment(ctx, address);
            assertEquals(4, acknowledged);
            ctx.sleep(Duration.ofMillis(1));
            assertEquals(SimNode.State.DOWN, node.state(), "the armed crash fired once the answer was received");
            assertNull(node.armed(), "firing disarms");
            assertEquals(4, seen.answers, "the node lost power before it went on");
            seen.recovered = -1;
            node.restart();
            awaitListening(ctx, seen);
            result[0] = acknowledged;
            result[1] = seen.recovered;
            return null;
        });
        return result;
    }

    @Test
    void aNodeThatAnswersBeforeItSyncsLosesWhatItAcknowledged() {
        for (long seed = 1; seed <= 4; seed++) {
            long[] run = acknowledgedAndKept(seed, false);
            assertTrue(run[1] < run[0], "seed " + seed + ": acknowledged " + run[0] + ", kept " + run[1]);
        }
    }

    @Test
    void aNodeThatSyncsBeforeItAnswersKeepsWhatItAcknowledged() {
        for (long seed = 1; seed <= 4; seed++) {
            long[] run = acknowledgedAndKept(seed, true);
            assertEquals(run[0], run[1], "seed " + seed);
        }
    }

    @Test
    void whatANodeReceivesForItsOwnRequestIsNoAnswerOfIts() {
        // Node 1 asks node 2, which answers: that is node 2's answer, so node 1, armed, keeps running; node 2,
        // armed, goes down.
        Seen seen = new Seen();
        SimRunner.of(SimConfig.builder().seed(9).workers(1).build()).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            InetSocketAddress server = new InetSocketAddress(SimCluster.address(2), PORT);
            int[] received = {0};
            SimNode asker = cluster.start(c -> {
                awaitListening(c, seen);
                while (true) {
                    try {
                        increment(c, server);
                        received[0]++;
                    } catch (dev.lockstep.LockstepException answererDown) {
                        // Node 2 lost power at its answer: asked again after it.
                    }
                    c.sleep(Duration.ofMillis(1));
                }
            });
            SimNode answerer = cluster.start(counterNode(server, true, seen));
            asker.crashAt(SimNode.IoBoundary.ANSWERED);
            for (int waited = 0; received[0] < 3; waited++) {
                assertTrue(waited < 1000, "node 1 got no answers in a simulated second");
                ctx.sleep(Duration.ofMillis(1));
            }
            assertEquals(SimNode.State.RUNNING, asker.state(), "an answer node 1 received is not node 1's answer");
            assertEquals(SimNode.IoBoundary.ANSWERED, asker.disarm());
            answerer.crashAt(SimNode.IoBoundary.ANSWERED);
            ctx.sleep(Duration.ofMillis(10));
            assertEquals(SimNode.State.DOWN, answerer.state(), "node 2's next answer fired");
            asker.kill();
            return null;
        });
    }
}
