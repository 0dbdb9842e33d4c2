package dev.lockstep.sim;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The node of the cluster tests, written against {@code dev.lockstep} alone: it appends numbered 8-byte entries
 * to its own log, one a millisecond, syncing every {@code syncEvery}; on start it reads back what its disk kept
 * and checks that entry {@code i} holds {@code i}; it serves its counts over the network (a client connects and
 * receives {@code written, synced, its clock} as three longs).
 *
 * <p>What the node has done is also kept in an {@link Observed}, for the test to compare with what it promised.
 * Node tasks and the controller run on the simulator's one thread, so plain fields are enough.
 */
final class LogNode {
    static final int PORT = 7000;
    private static final int ENTRY = 8;

    /** What one node did, across its lifetimes. */
    static final class Observed {
        int lifetimes;
        /** Entries found on disk when the last lifetime started. */
        long recovered = -1;
        /** Whether a recovered entry did not hold its number. */
        boolean corrupt;
        long written;
        long synced;

        @Override
        public String toString() {
            return "lifetimes " + lifetimes + ", recovered " + recovered + ", written " + written + ", synced "
                    + synced + (corrupt ? ", corrupt" : "");
        }
    }

    private LogNode() {
    }

    /**
     * The node's main task.
     *
     * @param seen where it records what it did
     * @param syncEvery entries between two syncs
     * @param entries how many entries it writes in all, then only serves
     */
    static Task<Void> main(Observed seen, int syncEvery, long entries) {
        return ctx -> {
            seen.lifetimes++;
            OpenedBlob opened = ctx.open("log", "entries").await();
            try (Blob log = opened.blob()) {
                long count = opened.length() / ENTRY;
                if (count > 0) {
                    ByteBuffer kept = ByteBuffer.wrap(log.readAt(0, (int) (count * ENTRY)).await());
                    for (long i = 0; i < count; i++) {
                        seen.corrupt |= kept.getLong() != i;
                    }
                }
                seen.recovered = count;
                seen.written = count;
                seen.synced = count;
                Handle<Void> server = ctx.child("server").spawn(c -> serve(c, seen));
                for (long i = count; i < entries; i++) {
                    log.writeAt(i * ENTRY, ByteBuffer.allocate(ENTRY).putLong(i).array()).await();
                    seen.written = i + 1;
                    if ((i + 1) % syncEvery == 0) {
                        log.sync().await();
                        seen.synced = i + 1;
                    }
                    ctx.sleep(Duration.ofMillis(1));
                }
                return server.await();
            }
        };
    }

    private static Void serve(Context ctx, Observed seen) {
        try (Listener listener = ctx.bind(new InetSocketAddress(PORT)).await()) {
            while (true) {
                try (Connection client = listener.accept().await()) {
                    long now = ctx.now().toEpochMilli();
                    client.sink().send(ByteBuffer.allocate(3 * Long.BYTES).putLong(seen.written)
                            .putLong(seen.synced).putLong(now).array()).await();
                }
            }
        }
    }

    /** What a node answered. */
    record Counts(long written, long synced, long clockMillis) {
    }

    /** Asks the node at {@code host} for its counts, over the network. */
    static Counts read(Context ctx, InetAddress host) {
        try (Connection connection = ctx.dial(new InetSocketAddress(host, PORT)).await()) {
            ByteBuffer answer = ByteBuffer.wrap(connection.stream().recv(3 * Long.BYTES).await());
            return new Counts(answer.getLong(), answer.getLong(), answer.getLong());
        }
    }
}
