package dev.lockstep.demo.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.AbortedException;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.uring.UringRunner;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's key-value service against hostile peers: 300 that announce a maximal frame and send nothing more,
 * slow senders part-way through a frame, peers that pipeline requests for a large value and never read, and
 * garbage frames. What the service holds for received bytes stays within twice what the peers sent (before, each
 * maximal announcement reserved a megabyte of heap and one of native memory: 300 of them took the process from
 * 99 to 749 MiB), comes back to nothing when they leave, and a well-behaved client is served throughout.
 */
@org.junit.jupiter.api.Tag("adversarial")
class KvServerHostilePeersTest {
    private static final int ANNOUNCERS = 300;
    private static final int SLOW_SENDERS = 50;
    private static final int NON_READERS = 10;
    private static final byte[] BIG_KEY = "big".getBytes(StandardCharsets.UTF_8);

    private static byte[] lengthPrefix(int length) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    private static void send(OutputStream out, byte[][] chunks) throws IOException {
        for (byte[] chunk : chunks) {
            out.write(chunk);
        }
    }

    /** One response over a plain socket: its status and payload, or null if the connection ended first. */
    private static Protocol.Response read(DataInputStream in) throws IOException {
        byte[] prefix = in.readNBytes(4);
        if (prefix.length < 4) {
            return null;
        }
        byte[] body = in.readNBytes(ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt());
        return new Protocol.Response(body[0], java.util.Arrays.copyOfRange(body, 1, body.length));
    }

    /** A request and its response on a connection of its own. */
    private static Protocol.Response call(InetSocketAddress server, byte[][] request) throws IOException {
        try (Socket socket = new Socket(server.getAddress(), server.getPort())) {
            send(socket.getOutputStream(), request);
            return read(new DataInputStream(socket.getInputStream()));
        }
    }

    /** Puts and reads back a value, retrying while the store is still opening. */
    private static void assertServed(InetSocketAddress server, String key, byte[] value) throws IOException {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        Protocol.Response put;
        do {
            put = call(server, Protocol.request(Protocol.PUT, keyBytes, value));
        } while (put != null && put.status() == Protocol.ERROR);
        assertTrue(put != null, "the put of " + key + " was not answered");
        assertEquals(Protocol.OK, put.status(), put.message());
        Protocol.Response got = call(server, Protocol.request(Protocol.GET, keyBytes, null));
        assertTrue(got != null, "the get of " + key + " was not answered");
        assertEquals(Protocol.OK, got.status(), got.message());
        assertArrayEquals(value, got.payload());
    }

    @Test
    @Timeout(120)
    void onIoUringHostilePeersCostWhatTheySentAndOthersAreServed(@TempDir Path data) throws Exception {
        UringRunner runner = UringRunner.builder().workers(2).storage(data).build();
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        Thread service = Thread.ofPlatform().name("kv-service").start(() -> assertThrows(AbortedException.class,
                () -> runner.start(ctx -> {
                    Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
                    bound.complete(listener.localAddress());
                    return new KvServer(KvOptions.defaults("kv"), line -> { }).serve(ctx, listener);
                })));
        InetSocketAddress server = bound.get(30, TimeUnit.SECONDS);
        assertServed(server, "before", new byte[] {1});
        assertServed(server, "big", new byte[64 << 10]);

        // Garbage frames: each answered BAD_REQUEST and closed, the service unharmed.
        for (int length : new int[] {0, -1, Integer.MAX_VALUE, Protocol.MAX_FRAME_BYTES + 1}) {
            Protocol.Response bad = call(server, new byte[][] {lengthPrefix(length)});
            assertEquals(Protocol.BAD_REQUEST, bad.status(), "frame length " + length);
        }
        Protocol.Response badOp = call(server, new byte[][] {lengthPrefix(4), new byte[] {9, 1, 0, 'k'}});
        assertEquals(Protocol.BAD_REQUEST, badOp.status());

        List<Socket> hostile = new ArrayList<>();
        long sent = 0;
        try {
            for (int i = 0; i < ANNOUNCERS; i++) {
                Socket announcer = new Socket(server.getAddress(), server.getPort());
                announcer.getOutputStream().write(lengthPrefix(Protocol.MAX_FRAME_BYTES));
                sent += 4;
                hostile.add(announcer);
            }
            for (int i = 0; i < SLOW_SENDERS; i++) {
                Socket slow = new Socket(server.getAddress(), server.getPort());
                byte[][] put = Protocol.request(Protocol.PUT, ("slow" + i).getBytes(StandardCharsets.UTF_8),
                        new byte[4096]);
                slow.getOutputStream().write(put[0]);
                slow.getOutputStream().write(put[1]);
                slow.getOutputStream().write(put[2], 0, 1000);            // and the rest never comes
                sent += put[0].length + put[1].length + 1000;
                hostile.add(slow);
            }
            for (int i = 0; i < NON_READERS; i++) {
                Socket deaf = new Socket(server.getAddress(), server.getPort());
                for (int r = 0; r < 100; r++) {                           // 6.4 MiB of answers, never read
                    byte[][] get = Protocol.request(Protocol.GET, BIG_KEY, null);
                    send(deaf.getOutputStream(), get);
                    sent += get[0].length + get[1].length;
                }
                hostile.add(deaf);
            }
            assertServed(server, "during", new byte[] {2});
            long held = runner.receiveBufferBytes();
            assertTrue(held <= 2 * sent, "the service holds " + held + " bytes for " + hostile.size()
                    + " hostile connections that sent " + sent);
        } finally {
            for (Socket socket : hostile) {
                socket.close();
            }
        }
        while (runner.receiveBufferBytes() != 0) {
            Thread.sleep(5);                                             // bounded by the test's timeout
        }
        assertServed(server, "after", new byte[] {3});
        service.interrupt();
        service.join();
    }

    /**
     * The same peers in the simulator, two seeds: garbage frames answered BAD_REQUEST, peers that never read,
     * announcers and slow senders; what the service holds, and that it serves throughout.
     */
    @Test
    void inTheSimulatorHostilePeersCostWhatTheySentAndOthersAreServed() {
        for (long seed = 1; seed <= 2; seed++) {
            SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).build());
            runner.start(ctx -> {
                Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 7000)).await();
                KvServer server = new KvServer(KvOptions.defaults("kv"), line -> { });
                var serving = ctx.child("server").spawn(c -> server.serve(c, listener));
                while (server.store() == null) {
                    ctx.sleep(Duration.ofMillis(1));
                }
                try (KvClient client = KvClient.connect(ctx, listener.localAddress())) {
                    assertEquals(Protocol.OK, client.put(BIG_KEY, new byte[64 << 10]).status());
                }
                for (int length : new int[] {0, -1, Integer.MAX_VALUE, Protocol.MAX_FRAME_BYTES + 1}) {
                    try (Connection garbage = ctx.dial(listener.localAddress()).await()) {
                        garbage.sink().send(lengthPrefix(length)).await();
                        assertEquals(Protocol.BAD_REQUEST, Protocol.readResponse(garbage.stream()).status(),
                                "frame length " + length);
                    }
                }
                List<Connection> hostile = new ArrayList<>();
                long sent = 0;
                for (int i = 0; i < NON_READERS; i++) {
                    Connection deaf = ctx.dial(listener.localAddress()).await();
                    for (int r = 0; r < 100; r++) {                           // 6.4 MiB of answers, never read
                        byte[][] get = Protocol.request(Protocol.GET, BIG_KEY, null);
                        deaf.sink().send(get).await();
                        sent += get[0].length + get[1].length;
                    }
                    hostile.add(deaf);
                }
                for (int i = 0; i < ANNOUNCERS; i++) {
                    Connection announcer = ctx.dial(listener.localAddress()).await();
                    announcer.sink().send(lengthPrefix(Protocol.MAX_FRAME_BYTES)).await();
                    sent += 4;
                    hostile.add(announcer);
                }
                for (int i = 0; i < SLOW_SENDERS; i++) {
                    Connection slow = ctx.dial(listener.localAddress()).await();
                    byte[][] put = Protocol.request(Protocol.PUT, ("slow" + i).getBytes(StandardCharsets.UTF_8),
                            new byte[4096]);
                    slow.sink().send(put[0], put[1], java.util.Arrays.copyOf(put[2], 1000)).await();
                    sent += put[0].length + put[1].length + 1000;
                    hostile.add(slow);
                }
                ctx.sleep(Duration.ofMillis(10));
                try (KvClient client = KvClient.connect(ctx, listener.localAddress())) {
                    byte[] key = "during".getBytes(StandardCharsets.UTF_8);
                    assertEquals(Protocol.OK, client.put(key, new byte[] {2}).status());
                    assertArrayEquals(new byte[] {2}, client.get(key).payload());
                    long held = runner.receiveBufferBytes();
                    assertTrue(held <= 2 * sent, "held " + held + " for peers that sent " + sent);
                }
                for (Connection connection : hostile) {
                    connection.close();
                }
                while (runner.receiveBufferBytes() != 0) {
                    ctx.sleep(Duration.ofMillis(1));
                }
                serving.abort();
                return null;
            });
        }
    }
}
