package dev.lockstep.conformance;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.LockstepException;
import dev.lockstep.Task;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * A seeded script of network operations — binds, dials from every worker, failing dials and binds, vectored
 * sends of random sizes received in random pieces, shutdowns and the poisoned sides that follow — whose
 * transcript holds only what must not depend on the runtime: outcomes, exception classes, byte counts and
 * content digests (never ports or addresses). Every decision comes from the seed, none from the runtime.
 */
final class NetworkWorkload {
    private NetworkWorkload() {
    }

    private static String attempt(Supplier<String> body) {
        try {
            return body.get();
        } catch (LockstepException failure) {
            return failure.getClass().getSimpleName();
        }
    }

    private static <T> T on(Context ctx, int worker, String label, Task<T> body) {
        Handle<T> handle = ctx.child(label).spawnOn(worker, body);
        return handle.await();
    }

    /** One connection: the dialled side and the accepted side. */
    private record Pair(Connection client, Connection server) {
    }

    static List<String> run(Context ctx, Probe probe, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> lines = new ArrayList<>();
        int workers = ctx.workers();
        InetAddress host = probe.localHost(ctx);
        Listener listener = ctx.bind(new InetSocketAddress(host, 0)).await();
        InetSocketAddress address = listener.localAddress();
        lines.add("net: bind listener -> ok");
        lines.add("net: bind the listener's address again -> " + attempt(() -> {
            ctx.bind(address).await().close();
            return "ok";
        }));
        Listener released = ctx.bind(new InetSocketAddress(host, 0)).await();
        InetSocketAddress releasedAddress = released.localAddress();
        released.close();
        lines.add("net: dial a released port -> " + attempt(() -> {
            ctx.dial(releasedAddress).await().close();
            return "ok";
        }));
        lines.add("net: dial 127.0.0.1:1 -> " + attempt(() -> {
            ctx.dial(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)).await().close();
            return "ok";
        }));
        if (workers > 1) {
            lines.add("net: bind 127.0.0.1:0 on worker 1 -> " + on(ctx, 1, "bindOnOne", c -> attempt(() -> {
                c.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await().close();
                return "ok";
            })));
        }

        List<Pair> pairs = new ArrayList<>();
        int connections = 1 + random.nextInt(3);
        for (int i = 0; i < connections; i++) {
            int worker = random.nextInt(workers);
            Connection client = on(ctx, worker, "dial" + i, c -> c.dial(address).await());
            Connection server = listener.accept().await();
            pairs.add(new Pair(client, server));
            lines.add("net: dial c" + i + " from worker " + worker + " and accept -> ok");
        }

        int messages = 3 + random.nextInt(6);
        for (int m = 0; m < messages; m++) {
            int index = random.nextInt(pairs.size());
            Pair pair = pairs.get(index);
            boolean fromClient = random.nextBoolean();
            Connection sender = fromClient ? pair.client() : pair.server();
            Connection receiver = fromClient ? pair.server() : pair.client();
            int size = 1 + random.nextInt(random.nextBoolean() ? 64 : 65_536);
            byte[] data = new byte[size];
            random.nextBytes(data);
            int chunkCount = 1 + random.nextInt(5);
            byte[][] chunks = new byte[chunkCount][];
            int at = 0;
            for (int c = 0; c < chunkCount; c++) {
                int length = c == chunkCount - 1 ? size - at : random.nextInt(size - at + 1);
                chunks[c] = java.util.Arrays.copyOfRange(data, at, at + length);
                at += length;
            }
            int senderWorker = random.nextInt(workers);
            Handle<String> send = ctx.child("send" + m).spawnOn(senderWorker, c -> attempt(() -> {
                sender.sink().send(chunks).await();
                return "ok";
            }));
            StringBuilder received = new StringBuilder();
            int got = 0;
            while (got < size) {
                int piece = Math.min(size - got, 1 + random.nextInt(Math.max(1, size / 2)));
                String result = attempt(() -> StorageWorkload.digest(receiver.stream().recv(piece).await()));
                received.append(' ').append(piece).append('=').append(result);
                got += piece;
            }
            lines.add("net: c" + index + (fromClient ? " client->server " : " server->client ") + size + " bytes in "
                    + chunkCount + " chunks from worker " + senderWorker + " -> send " + send.await() + ", received"
                    + received);
        }

        Pair closing = pairs.get(random.nextInt(pairs.size()));
        // Bytes left unread before the shutdown make the receive below come back short first, then fail.
        int leftover = random.nextInt(8);
        if (leftover > 0) {
            byte[] tail = new byte[leftover];
            random.nextBytes(tail);
            lines.add("net: send " + leftover + " bytes before shutdown -> " + attempt(() -> {
                closing.client().sink().send(tail).await();
                return "ok";
            }));
        }
        closing.client().sink().close();
        lines.add("net: send on a closed sink -> " + attempt(() -> {
            closing.client().sink().send(new byte[1]).await();
            return "ok";
        }));
        lines.add("net: receive " + (leftover + 1) + " after the peer shut down -> " + attempt(() -> {
            closing.server().stream().recv(leftover + 1).await();
            return "ok";
        }));
        lines.add("net: receive on the failed stream -> " + attempt(() -> {
            closing.server().stream().recv(1).await();
            return "ok";
        }));
        lines.add("net: send back on the other side -> " + attempt(() -> {
            closing.server().sink().send(new byte[] {7}).await();
            return StorageWorkload.digest(closing.client().stream().recv(1).await());
        }));
        for (Pair pair : pairs) {
            pair.client().close();
            pair.server().close();
        }
        listener.close();
        lines.add("net: accept on a closed listener -> " + attempt(() -> {
            listener.accept().await().close();
            return "ok";
        }));
        return lines;
    }
}
