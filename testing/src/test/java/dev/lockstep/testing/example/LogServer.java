package dev.lockstep.testing.example;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.LockstepException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import dev.lockstep.sync.Lease;
import dev.lockstep.sync.Mutex;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The node of the README's "Simulating a cluster", written against {@code dev.lockstep} alone: a log of 8-byte
 * entries in one blob, served over the network. A client sends {@code 'A', value} and gets the entry's index once
 * it is synced, or {@code 'R', index} and gets the value ({@code -1} for an index the log does not have). Each
 * connection is served by a task of its own; one that sends anything else, or nothing for {@link #IDLE}, is closed
 * without an answer, and the others go on. {@link #main(String[])} runs one node in this process on io_uring; the
 * simulator runs the same {@link #node} task on each simulated node.
 */
public final class LogServer {
    public static final int PORT = 7000;
    /** How long a connection may wait to send its request before it is closed. */
    public static final Duration IDLE = Duration.ofSeconds(10);
    private static final int ENTRY = Long.BYTES;

    private LogServer() {
    }

    /** One node: serves its log at {@code address}; a crash may have cut the last entry short. */
    public static Task<Void> node(InetSocketAddress address) {
        return ctx -> {
            OpenedBlob opened = ctx.open("log", "entries").await();
            try (Blob blob = opened.blob(); Listener listener = ctx.bind(address).await()) {
                Log log = new Log(blob, opened.length() / ENTRY);
                while (true) {
                    Connection client = listener.accept().await();
                    // Each client on a task of its own, which owns the connection: closed when the task ends,
                    // even one the node's end aborts before it runs.
                    ctx.child("client").spawn(client, c -> serve(c, client, log));
                }
            }
        };
    }

    /** Answers one request; bad input, an idle client or a failure closes this connection and nothing else. */
    private static Void serve(Context ctx, Connection client, Log log) {
        try (client) {
            ByteBuffer request = ByteBuffer.wrap(ctx.timeout(IDLE, () -> client.stream().recv(1 + ENTRY).await()));
            byte op = request.get();
            long argument = request.getLong();
            if (op == 'A' || op == 'R') {
                client.sink().send(bytes(op == 'A' ? log.append(argument) : log.read(argument))).await();
            }
        } catch (LockstepException goneIdleOrFailed) {
            // Not acknowledged: the client sees its connection close.
        }
        return null;
    }

    /** The entries, appended one at a time by whichever client's task holds the mutex. */
    private static final class Log {
        private final Blob blob;
        private final Mutex appending = new Mutex();
        private volatile long entries;                               // written under the mutex, read by any task

        Log(Blob blob, long entries) {
            this.blob = blob;
            this.entries = entries;
        }

        long append(long value) {
            try (Lease held = appending.lock().await()) {
                blob.writeAt(entries * ENTRY, bytes(value)).await();
                blob.sync().await();                                 // durable before it is acknowledged
                return entries++;
            }
        }

        long read(long index) {
            if (index < 0 || index >= entries) {
                return -1;
            }
            return ByteBuffer.wrap(blob.readAt(index * ENTRY, ENTRY).await()).getLong();
        }
    }

    /** A client's request: {@code 'A'} appends {@code argument}, {@code 'R'} reads entry {@code argument}. */
    public static long call(Context ctx, InetSocketAddress node, char op, long argument) {
        try (Connection connection = ctx.dial(node).await()) {
            connection.sink().send(ByteBuffer.allocate(1 + ENTRY).put((byte) op).putLong(argument).array()).await();
            return ByteBuffer.wrap(connection.stream().recv(ENTRY).await()).getLong();
        }
    }

    private static byte[] bytes(long value) {
        return ByteBuffer.allocate(ENTRY).putLong(value).array();
    }

    /** In production, one node per process: {@code LogServer <address> <port> <data directory>}. */
    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        UringRunner.builder().storage(Path.of(args[2])).build().start(node(address));
    }
}
