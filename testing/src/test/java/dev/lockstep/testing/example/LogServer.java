package dev.lockstep.testing.example;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The node of the README's "Simulating a cluster", written against {@code dev.lockstep} alone: a log of 8-byte
 * entries in one blob, served over the network. A client sends {@code 'A', value} and gets the entry's index once
 * it is synced, or {@code 'R', index} and gets the value. {@link #main(String[])} runs one node in this process on
 * io_uring; the simulator runs the same {@link #node} task on each simulated node.
 */
public final class LogServer {
    public static final int PORT = 7000;
    private static final int ENTRY = Long.BYTES;

    private LogServer() {
    }

    /** One node: serves its log at {@code address}; a crash may have cut the last entry short. */
    public static Task<Void> node(InetSocketAddress address) {
        return ctx -> {
            OpenedBlob opened = ctx.open("log", "entries").await();
            try (Blob log = opened.blob(); Listener listener = ctx.bind(address).await()) {
                long entries = opened.length() / ENTRY;
                while (true) {
                    try (Connection client = listener.accept().await()) {
                        entries = serve(client, log, entries);
                    } catch (NetworkException clientWentAway) {
                        // The next client.
                    }
                }
            }
        };
    }

    private static long serve(Connection client, Blob log, long entries) {
        ByteBuffer request = ByteBuffer.wrap(client.stream().recv(1 + ENTRY).await());
        byte op = request.get();
        long argument = request.getLong();
        if (op == 'A') {
            log.writeAt(entries * ENTRY, bytes(argument)).await();
            log.sync().await();                                  // durable before it is acknowledged
            client.sink().send(bytes(entries)).await();
            return entries + 1;
        }
        long value = argument < entries ? ByteBuffer.wrap(log.readAt(argument * ENTRY, ENTRY).await()).getLong() : -1;
        client.sink().send(bytes(value)).await();
        return entries;
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
