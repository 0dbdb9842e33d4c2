package dev.lockstep.testing;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import dev.lockstep.TimeoutException;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimNode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A planted-bug fixture: a value is committed once a majority of three replicas acknowledged it, and every replica
 * appends what it is sent to its own log. The correct replica syncs before it acknowledges; the buggy one
 * acknowledges first and syncs after a group commit's 2 ms wait, so a value is lost if a majority loses power inside
 * that window. One node down
 * at a time never loses a committed value (the other two have it synced); a correlated power loss does.
 *
 * <p>Node tasks and the controller run on the simulator's one thread, so the replicas' plain fields are enough.
 */
final class QuorumLog {
    static final int NODES = 3;
    private static final int PORT = 7100;
    private static final int ENTRY = Long.BYTES;

    /** What one replica holds: loaded from its disk at start, then what it appended. */
    static final class Replica {
        final Set<Long> held = new HashSet<>();
        /**
         * Lifetimes whose main task started (a lifetime killed before its first step never does), and the last one
         * that loaded its disk: equal once the latest loaded.
         */
        int started;
        int loaded;
    }

    private QuorumLog() {
    }

    static Task<Void> replica(Replica replica, boolean ackBeforeSync) {
        return ctx -> {
            replica.started++;
            OpenedBlob opened = ctx.open("log", "values").await();
            try (Blob log = opened.blob(); Listener listener = ctx.bind(new InetSocketAddress(PORT)).await()) {
                long entries = opened.length() / ENTRY;
                replica.held.clear();
                if (entries > 0) {
                    ByteBuffer kept = ByteBuffer.wrap(log.readAt(0, (int) (entries * ENTRY)).await());
                    for (long i = 0; i < entries; i++) {
                        replica.held.add(kept.getLong());
                    }
                }
                replica.loaded = replica.started;
                while (true) {
                    try (Connection client = listener.accept().await()) {
                        long value = ByteBuffer.wrap(client.stream().recv(ENTRY).await()).getLong();
                        log.writeAt(entries++ * ENTRY, ByteBuffer.allocate(ENTRY).putLong(value).array()).await();
                        replica.held.add(value);
                        if (ackBeforeSync) {
                            client.sink().send(new byte[] {1}).await();
                            ctx.sleep(Duration.ofMillis(2)); // a group commit's wait for more appends
                            log.sync().await();
                        } else {
                            log.sync().await();
                            client.sink().send(new byte[] {1}).await();
                        }
                    } catch (NetworkException clientWentAway) {
                        // The next client.
                    }
                }
            }
        };
    }

    /**
     * The controller: three replicas, a client committing values for {@code millis} under the nemesis, then every
     * node back and loaded.
     *
     * @return the committed values a majority of replicas no longer holds
     */
    static List<Long> lostCommitted(Context ctx, boolean ackBeforeSync, Function<Long, Task<Void>> nemesis,
            long seed, int millis) {
        SimCluster cluster = SimCluster.of(ctx);
        Replica[] replicas = new Replica[NODES];
        for (int i = 0; i < NODES; i++) {
            replicas[i] = new Replica();
            cluster.start(replica(replicas[i], ackBeforeSync));
        }
        Handle<Void> faults = ctx.child("nemesis").spawn(nemesis.apply(seed));
        List<Long> committed = new ArrayList<>();
        long end = ctx.now().toEpochMilli() + millis;
        for (long value = 1; ctx.now().toEpochMilli() < end; value++) {
            int acks = 0;
            for (int id = 1; id <= NODES; id++) {
                InetSocketAddress node = new InetSocketAddress(SimCluster.address(id), PORT);
                long sent = value;
                try {
                    ctx.timeout(Duration.ofMillis(5), () -> {
                        try (Connection connection = ctx.dial(node).await()) {
                            connection.sink().send(ByteBuffer.allocate(ENTRY).putLong(sent).array()).await();
                            return connection.stream().recv(1).await();
                        }
                    });
                    acks++;
                } catch (NetworkException | TimeoutException downPausedOrCut) {
                    // No acknowledgement from this replica.
                }
            }
            if (acks > NODES / 2) {
                committed.add(value);
            }
            ctx.sleep(Duration.ofMillis(1)); // a refused dial takes no time: without a pause the client would spin
        }
        faults.abort();
        try {
            faults.await();
        } catch (dev.lockstep.ClosedException aborted) {
            // It brought back what it took down.
        }
        ctx.sleep(Duration.ofMillis(1)); // the restarted lifetimes take their first step
        for (int waited = 0; !allLoaded(cluster, replicas); waited++) {
            if (waited > 1000) {
                StringBuilder states = new StringBuilder();
                for (Replica replica : replicas) {
                    states.append(" started ").append(replica.started).append(" loaded ").append(replica.loaded);
                }
                throw new AssertionError("replicas did not come back: " + cluster.nodes() + states);
            }
            ctx.sleep(Duration.ofMillis(1));
        }
        List<Long> lost = new ArrayList<>();
        for (long value : committed) {
            int holders = 0;
            for (Replica replica : replicas) {
                holders += replica.held.contains(value) ? 1 : 0;
            }
            if (holders <= NODES / 2) {
                lost.add(value);
            }
        }
        return lost;
    }

    private static boolean allLoaded(SimCluster cluster, Replica[] replicas) {
        for (int i = 0; i < NODES; i++) {
            SimNode node = cluster.node(i + 1);
            if (node.state() != SimNode.State.RUNNING || replicas[i].loaded != replicas[i].started) {
                return false;
            }
        }
        return true;
    }
}
