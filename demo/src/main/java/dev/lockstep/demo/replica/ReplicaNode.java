package dev.lockstep.demo.replica;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.LockstepException;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import dev.lockstep.demo.kv.InjectedBug;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * One node of the replicated log (see the package doc). Every request is one connection: a 25-byte request
 * {@code [op u8][index u64][key u64][value u64]} and a 16-byte answer {@code [u64][u64]}.
 * <ul>
 *   <li>{@code 'P'} (to the primary; index ignored): put {@code key = value}; the answer is {@code [index, 1]} once
 *       the put is acknowledged, {@code [-1, 0]} if no backup took it in time.</li>
 *   <li>{@code 'R'} (primary to backup): store {@code key = value} at {@code index}; the answer {@code [index, 1]}
 *       acknowledges it.</li>
 *   <li>{@code 'G'} (to any node): the record at {@code index}, {@code [key, value]}, or {@code [0, 0]} if this
 *       node has none there.</li>
 * </ul>
 * The log is one blob of 16-byte records {@code [key u64][value u64]} at {@code index * 16}; a backup that missed
 * some indexes has zeros there. Keys and values are never 0.
 */
public final class ReplicaNode {
    /** The port every node serves on. */
    public static final int PORT = 7100;
    /** How long the primary waits for one backup's acknowledgement. */
    static final Duration REPLICATION_TIMEOUT = Duration.ofMillis(15);
    private static final int RECORD = 16;
    private static final int REQUEST = 25;

    private ReplicaNode() {
    }

    /**
     * A node's main task.
     *
     * @param self where it listens
     * @param backups the backups' addresses if this is the primary, else empty
     * @param bug the injected bug, or {@link InjectedBug#NONE}
     * @return the task
     */
    public static Task<Void> main(InetSocketAddress self, List<InetSocketAddress> backups, InjectedBug bug) {
        return ctx -> {
            OpenedBlob opened = ctx.open("replica", "log").await();
            try (Blob log = opened.blob(); Listener listener = ctx.bind(self).await()) {
                long next = opened.length() / RECORD;
                for (long request = 0; ; request++) {
                    try (Connection client = listener.accept().await()) {
                        next = serve(ctx, client, log, next, backups, bug, request);
                    } catch (NetworkException clientWentAway) {
                        // The next client.
                    }
                }
            }
        };
    }

    private static long serve(Context ctx, Connection client, Blob log, long next, List<InetSocketAddress> backups,
            InjectedBug bug, long request) {
        ByteBuffer in = ByteBuffer.wrap(client.stream().recv(REQUEST).await());
        byte op = in.get();
        long index = in.getLong();
        long key = in.getLong();
        long value = in.getLong();
        switch (op) {
            case 'P' -> {
                long at = next++;
                log.writeAt(at * RECORD, record(key, value)).await();
                log.sync().await();
                boolean replicated;
                if (bug == InjectedBug.ACK_BEFORE_REPLICATION) {
                    // The bug: acknowledged with one copy; the backups get it when they get it.
                    ctx.child("replicate" + request).spawn(c -> replicate(c, backups, at, key, value));
                    replicated = true;
                } else {
                    replicated = replicate(ctx, backups, at, key, value);
                }
                answer(client, replicated ? at : -1, replicated ? 1 : 0);
            }
            case 'R' -> {
                log.writeAt(index * RECORD, record(key, value)).await();
                if (bug == InjectedBug.BACKUP_ACK_BEFORE_SYNC) {
                    answer(client, index, 1);                // the bug: acknowledged while only in the page cache
                    log.sync().await();
                } else {
                    log.sync().await();
                    answer(client, index, 1);
                }
                next = Math.max(next, index + 1);
            }
            case 'G' -> {
                if ((index + 1) * RECORD <= log.length()) {
                    ByteBuffer stored = ByteBuffer.wrap(log.readAt(index * RECORD, RECORD).await());
                    answer(client, stored.getLong(), stored.getLong());
                } else {
                    answer(client, 0, 0);
                }
            }
            default -> answer(client, -1, 0);
        }
        return next;
    }

    /** Sends the put to the backups in turn until one acknowledges it. */
    private static boolean replicate(Context ctx, List<InetSocketAddress> backups, long index, long key, long value) {
        for (InetSocketAddress backup : backups) {
            try {
                long[] acknowledged = ctx.timeout(REPLICATION_TIMEOUT, () -> call(ctx, backup, 'R', index, key, value));
                if (acknowledged[0] == index && acknowledged[1] == 1) {
                    return true;
                }
            } catch (LockstepException downPausedOrCut) {
                // The next backup.
            }
        }
        return false;
    }

    /**
     * One request to a node.
     *
     * @param ctx the caller's context
     * @param node the node
     * @param op {@code 'P'}, {@code 'R'} or {@code 'G'}
     * @param index the index ({@code 'R'}, {@code 'G'})
     * @param key the key ({@code 'P'}, {@code 'R'})
     * @param value the value ({@code 'P'}, {@code 'R'})
     * @return the two numbers of the answer
     * @throws LockstepException if the node cannot be reached or the connection breaks
     */
    public static long[] call(Context ctx, InetSocketAddress node, char op, long index, long key, long value) {
        try (Connection connection = ctx.dial(node).await()) {
            connection.sink().send(ByteBuffer.allocate(REQUEST).put((byte) op).putLong(index).putLong(key)
                    .putLong(value).array()).await();
            ByteBuffer answer = ByteBuffer.wrap(connection.stream().recv(RECORD).await());
            return new long[] {answer.getLong(), answer.getLong()};
        }
    }

    private static void answer(Connection client, long first, long second) {
        client.sink().send(record(first, second)).await();
    }

    private static byte[] record(long first, long second) {
        return ByteBuffer.allocate(RECORD).putLong(first).putLong(second).array();
    }
}
