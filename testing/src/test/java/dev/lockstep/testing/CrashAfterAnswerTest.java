package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.LockstepException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import dev.lockstep.sim.SimCluster;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterNemesis.Disturbance#CRASH_AFTER_ANSWER}: a node that acknowledges an append before its log is synced
 * (it answers, then syncs) loses acknowledged entries when it loses power just after answering; on a lightly loaded
 * node, a crash at a uniformly drawn moment seldom lands in that window. The node that syncs first loses nothing.
 * Each seed's verdict is deterministic, so the counts are too.
 */
class CrashAfterAnswerTest {
    private static final int PORT = 7200;
    private static final int NODES = 3;
    private static final int ENTRY = Long.BYTES;
    /** Between two appends the controller makes: the node is idle most of the time, as a lightly loaded one. */
    private static final Duration GAP = Duration.ofMillis(10);

    private static byte[] bytes(long value) {
        return ByteBuffer.allocate(ENTRY).putLong(value).array();
    }

    /**
     * A log node: {@code 'A', value} appends and answers the index, {@code 'R', index} answers the value (-1 when
     * it has no such entry). The correct node syncs before it answers an append; the buggy one answers, then
     * syncs.
     */
    private static Task<Void> node(InetSocketAddress address, boolean ackBeforeSync) {
        return ctx -> {
            OpenedBlob opened = ctx.open("log", "entries").await();
            try (Blob log = opened.blob(); Listener listener = ctx.bind(address).await()) {
                long entries = opened.length() / ENTRY;
                while (true) {
                    Connection asker = listener.accept().await(); // the node's abort ends the loop here
                    try (asker) {
                        ByteBuffer request = ByteBuffer.wrap(asker.stream().recv(1 + ENTRY).await());
                        byte op = request.get();
                        long argument = request.getLong();
                        if (op == 'R') {
                            long value = argument < 0 || argument >= entries ? -1
                                    : ByteBuffer.wrap(log.readAt(argument * ENTRY, ENTRY).await()).getLong();
                            asker.sink().send(bytes(value)).await();
                            continue;
                        }
                        log.writeAt(entries * ENTRY, bytes(argument)).await();
                        if (!ackBeforeSync) {
                            log.sync().await();
                        }
                        asker.sink().send(bytes(entries)).await();
                        entries++;
                        if (ackBeforeSync) {
                            log.sync().await();
                        }
                    } catch (LockstepException askerGone) {
                        // The asker timed out or was cut off: the next one is served.
                    }
                }
            }
        };
    }

    private static long call(Context ctx, InetSocketAddress node, char op, long argument) {
        try (Connection connection = ctx.dial(node).await()) {
            connection.sink().send(ByteBuffer.allocate(1 + ENTRY).put((byte) op).putLong(argument).array()).await();
            return ByteBuffer.wrap(connection.stream().recv(ENTRY).await()).getLong();
        }
    }

    /** What one run saw: acknowledged entries lost, and the nemesis's crashes after an answer. */
    private record Verdict(int lost, int crashesAfterAnswer) {
    }

    private static Verdict run(long seed, boolean ackBeforeSync, ClusterNemesis.Disturbance disturbance) {
        int[] afterAnswer = {0};
        int lost = Simulations.run(seed, FaultConfig.NONE, ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            RandomGenerator random = dev.lockstep.sim.SimRunner.control(ctx).random();
            List<InetSocketAddress> nodes = new ArrayList<>();
            for (int id = 1; id <= NODES; id++) {
                nodes.add(new InetSocketAddress(SimCluster.address(id), PORT));
                cluster.start(node(nodes.getLast(), ackBeforeSync));
            }
            ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(disturbance), Duration.ofMillis(10), null,
                    line -> {
                        if (line.contains(" at ANSWERED")) {
                            afterAnswer[0]++;
                        }
                    });
            Handle<Void> faults = ctx.child("nemesis").spawn(nemesis::run);
            List<List<long[]>> acknowledged = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int i = 0; i < 20; i++) {
                int node = random.nextInt(NODES);
                long value = random.nextLong();
                try {
                    long index = ctx.timeout(Duration.ofMillis(30), () -> call(ctx, nodes.get(node), 'A', value));
                    acknowledged.get(node).add(new long[] {index, value});
                } catch (LockstepException downOrCut) {
                    // Not acknowledged.
                }
                ctx.sleep(GAP);
            }
            faults.abort();
            ctx.sleep(Duration.ofMillis(50));
            int missing = 0;
            for (int node = 0; node < NODES; node++) {
                for (long[] entry : acknowledged.get(node)) {
                    if (call(ctx, nodes.get(node), 'R', entry[0]) != entry[1]) {
                        missing++;
                    }
                }
            }
            return missing;
        });
        return new Verdict(lost, afterAnswer[0]);
    }

    /** The seeds of {@code 1..last} in which an acknowledged entry was lost. */
    private static List<Long> failingSeeds(boolean ackBeforeSync, ClusterNemesis.Disturbance disturbance, long last) {
        List<Long> failing = new ArrayList<>();
        for (long seed = 1; seed <= last; seed++) {
            if (run(seed, ackBeforeSync, disturbance).lost() > 0) {
                failing.add(seed);
            }
        }
        return failing;
    }

    @Test
    void aCrashJustAfterAnAnswerFindsAnAckBeforeSyncInFarMoreSeedsThanACrashAnyTime() {
        List<Long> afterAnswer = failingSeeds(true, ClusterNemesis.Disturbance.CRASH_AFTER_ANSWER, 8);
        List<Long> anyTime = failingSeeds(true, ClusterNemesis.Disturbance.CRASH, 8);
        assertTrue(afterAnswer.size() >= 6 && afterAnswer.size() >= 3 * anyTime.size(),
                "seeds 1..8 losing an acknowledged entry: crash after an answer " + afterAnswer + ", crash any time "
                        + anyTime);
    }

    @Test
    void itFiresAndTheNodeThatSyncsFirstLosesNothing() {
        for (long seed = 1; seed <= 3; seed++) {
            Verdict verdict = run(seed, false, ClusterNemesis.Disturbance.CRASH_AFTER_ANSWER);
            assertTrue(verdict.crashesAfterAnswer() >= 1, "seed " + seed + ": crashes after an answer "
                    + verdict.crashesAfterAnswer());
            assertEquals(0, verdict.lost(), "seed " + seed);
        }
    }
}
