package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.AbortedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.RecvFailedException;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.uring.UringRunner;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's {@link LogServer} against hostile peers: requests for indexes it does not have (−1 among them),
 * garbage, requests cut short, hundreds of idle connections, slow senders and peers that never read their answer.
 * Each costs at most its own connection; every other client is served meanwhile, the node never exits, and what
 * the runner holds for received bytes stays within the 9 bytes of a request per connection and is all given back
 * when the peers leave.
 */
@org.junit.jupiter.api.Tag("adversarial")
class LogServerHostilePeersTest {
    private static final int IDLE_PEERS = 200;
    private static final int SLOW_PEERS = 50;
    private static final int NON_READERS = 20;

    private static byte[] request(char op, long argument) {
        return ByteBuffer.allocate(9).put((byte) op).putLong(argument).array();
    }

    /** A request on a connection of its own, over a plain socket: the answer, or null if it closed without one. */
    private static Long ask(InetSocketAddress node, byte[] request) throws IOException {
        try (Socket socket = new Socket(node.getAddress(), node.getPort())) {
            socket.getOutputStream().write(request);
            socket.shutdownOutput();                     // all it sends: a request cut short ends here
            byte[] answer = socket.getInputStream().readNBytes(8);
            return answer.length == 8 ? ByteBuffer.wrap(answer).getLong() : null;
        }
    }

    private static Socket connect(InetSocketAddress node) throws IOException {
        while (true) {
            try {
                return new Socket(node.getAddress(), node.getPort());
            } catch (java.net.ConnectException notListeningYet) {
                Thread.onSpinWait();
            }
        }
    }

    /** Waits until the node listens (its blob opened and its address bound). */
    private static void awaitListening(Context ctx, InetSocketAddress node) {
        while (true) {
            try {
                ctx.dial(node).await().close();
                return;
            } catch (dev.lockstep.ConnectionFailedException notYet) {
                ctx.sleep(Duration.ofMillis(1));
            }
        }
    }

    /** Waits (bounded by the test's timeout) until the runner holds no received bytes. */
    private static void awaitNothingHeld(UringRunner runner) throws InterruptedException {
        while (runner.receiveBufferBytes() != 0) {
            Thread.sleep(5);
        }
    }

    @Test
    @Timeout(60)
    void onIoUringEveryHostilePeerCostsOnlyItsConnection(@TempDir Path data) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        InetSocketAddress node = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        UringRunner runner = UringRunner.builder().workers(2).storage(data).build();
        Thread server = Thread.ofPlatform().name("log-server").start(() -> {
            assertThrows(AbortedException.class, () -> runner.start(LogServer.node(node)));
        });
        List<Socket> hostile = new ArrayList<>();
        try {
            connect(node).close();
            assertEquals(-1L, ask(node, request('R', -1)), "index -1");
            assertEquals(-1L, ask(node, request('R', Long.MIN_VALUE)), "index Long.MIN_VALUE");
            assertEquals(-1L, ask(node, request('R', Long.MAX_VALUE)), "index Long.MAX_VALUE");
            assertEquals(null, ask(node, request('X', 1)), "an unknown operation is not answered");
            assertEquals(null, ask(node, new byte[] {'A', 0, 0}), "a request cut short is not answered");

            int sent = 0;
            for (int i = 0; i < IDLE_PEERS; i++) {
                hostile.add(connect(node));
            }
            for (int i = 0; i < SLOW_PEERS; i++) {
                Socket slow = connect(node);
                slow.getOutputStream().write(request('R', 0), 0, 5);   // and the rest never comes
                sent += 5;
                hostile.add(slow);
            }
            for (int i = 0; i < NON_READERS; i++) {
                Socket deaf = connect(node);
                deaf.getOutputStream().write(request('A', 1_000 + i));   // answered, never read
                sent += 9;
                hostile.add(deaf);
            }
            // Served while every hostile connection is open: before, one idle client stalled every other.
            long first = ask(node, request('A', 42));
            assertEquals(42L, ask(node, request('R', first)));
            long held = runner.receiveBufferBytes();
            assertTrue(held <= 2L * sent, "the runner holds " + held + " bytes for " + hostile.size()
                    + " hostile connections that sent " + sent);
        } finally {
            for (Socket socket : hostile) {
                socket.close();
            }
        }
        awaitNothingHeld(runner);
        assertEquals(-1L, ask(node, request('R', -1)), "still serving after the hostile peers left");
        server.interrupt();
        server.join();
    }

    /**
     * The same peers in the simulator, where the idle timeout can pass: an idle connection is closed after
     * {@link LogServer#IDLE}, and the node serves throughout. Three seeds, each its own interleaving.
     */
    @Test
    void inTheSimulatorEveryHostilePeerCostsOnlyItsConnection() {
        for (long seed = 1; seed <= 3; seed++) {
            SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).build());
            runner.start(ctx -> {
                InetSocketAddress node = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), LogServer.PORT);
                Handle<Void> serving = ctx.child("node").spawn(LogServer.node(node));
                awaitListening(ctx, node);
                assertEquals(-1L, LogServer.call(ctx, node, 'R', -1));
                List<Connection> hostile = new ArrayList<>();
                for (int i = 0; i < IDLE_PEERS; i++) {
                    hostile.add(ctx.dial(node).await());
                }
                for (int i = 0; i < SLOW_PEERS; i++) {
                    Connection slow = ctx.dial(node).await();
                    slow.sink().send(java.util.Arrays.copyOf(request('R', 0), 5)).await();
                    hostile.add(slow);
                }
                Connection garbage = ctx.dial(node).await();
                garbage.sink().send(request('X', 7)).await();
                assertThrows(RecvFailedException.class, () -> garbage.stream().recv(8).await());
                garbage.close();
                long index = LogServer.call(ctx, node, 'A', 42);
                assertEquals(42L, LogServer.call(ctx, node, 'R', index));
                long held = runner.receiveBufferBytes();
                assertTrue(held <= 2L * 5 * SLOW_PEERS + 2L * 9, "held " + held);
                ctx.sleep(LogServer.IDLE.plusSeconds(1));
                for (Connection idle : hostile) {
                    assertThrows(RecvFailedException.class, () -> idle.stream().recv(1).await(),
                            "an idle connection still open after the idle timeout");
                    idle.close();
                }
                assertEquals(0, runner.receiveBufferBytes(), "held after the hostile peers left");
                assertEquals(42L, LogServer.call(ctx, node, 'R', index), "still serving");
                serving.abort();
                return null;
            });
        }
    }
}
