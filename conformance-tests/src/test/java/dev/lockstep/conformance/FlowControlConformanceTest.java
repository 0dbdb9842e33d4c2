package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.RecvFailedException;
import dev.lockstep.TimeoutException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * TCP flow control and buffering, side by side: a sender to a peer that never reads must stop, two peers that
 * both send a large message before reading must deadlock, a large send arrives in pieces, and closing with
 * unread data resets the peer. Every wait that blocks on Linux is bounded by a timeout, so a blocking case ends.
 */
@Group(ReadmeGroup.FLOW_CONTROL)
class FlowControlConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static void report(Runtimes rt, String probe, Object what) {
        System.out.println("PROBE " + rt.config().displayName() + " " + probe + ": " + what);
    }

    private static Connection[] pair(Context ctx, Listener listener) {
        Operation<Connection> accepted = listener.accept();
        Connection client = ctx.dial(listener.localAddress()).await();
        return new Connection[] {client, accepted.await()};
    }

    /** Awaits {@code operation} for at most {@code duration}; false if it timed out (it is closed then). */
    private static boolean completesWithin(Context ctx, Duration duration, Operation<?> operation) {
        try {
            ctx.timeout(duration, () -> operation.await());
            return true;
        } catch (TimeoutException blocked) {
            return false;
        }
    }

    /**
     * 64 MiB in 1 MiB sends to a peer that never reads: once the send and receive buffers are full, a send stops
     * completing (Linux loopback buffers a few MiB).
     */
    @Conformance
    void testSendsStopWhenThePeerNeverReads(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                byte[] chunk = new byte[1 << 20];
                int completed = 0;
                boolean blocked = false;
                while (completed < 64 && !blocked) {
                    Operation<Void> send = ends[0].sink().send(chunk);
                    if (completesWithin(ctx, Duration.ofSeconds(1), send)) {
                        completed++;
                    } else {
                        blocked = true;
                    }
                }
                report(rt, "1 MiB sends completed to a peer that never reads", completed);
                ends[0].close();
                ends[1].close();
                assertTrue(blocked, completed + " MiB of sends completed to a peer that never read: no backpressure");
            }
            return null;
        });
    }

    /** Both peers send 16 MiB before reading: neither send can complete, the classic deadlock. */
    @Conformance
    void testBothPeersSendingBeforeReadingDeadlock(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                byte[] big = new byte[16 << 20];
                Operation<Void> a = ends[0].sink().send(big);
                Operation<Void> b = ends[1].sink().send(big);
                boolean bothSent = completesWithin(ctx, Duration.ofSeconds(2), a)
                        & completesWithin(ctx, Duration.ofSeconds(2), b);
                report(rt, "both 16 MiB sends completed before either peer read", bothSent);
                if (bothSent) {
                    ends[0].stream().recv(big.length).await();
                    ends[1].stream().recv(big.length).await();
                }
                a.close();
                b.close();
                ends[0].close();
                ends[1].close();
                assertTrue(!bothSent, "two peers each sent 16 MiB before reading and neither blocked");
            }
            return null;
        });
    }

    /** Closing with unread data resets the peer: its next receive fails, even with nothing sent since. */
    @Conformance
    void testCloseWithUnreadDataResetsThePeersReceive(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                ends[0].sink().send("unread".getBytes(StandardCharsets.UTF_8)).await();
                ctx.sleep(Duration.ofMillis(20));
                ends[1].close();
                ctx.sleep(Duration.ofMillis(20));
                RecvFailedException reset = assertThrows(RecvFailedException.class,
                        () -> ctx.timeout(Duration.ofSeconds(2), () -> ends[0].stream().recv(1).await()));
                report(rt, "recv after the peer closed with unread data", reset.getMessage());
                ends[0].close();
            }
            return null;
        });
    }

    /**
     * Data that arrived before a reset is still received: the peer sent "hello", then closed with our data unread
     * (a reset); Linux hands out the queued "hello" before it reports the reset.
     */
    @Conformance
    void testDataThatArrivedBeforeAResetIsStillReceived(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                ends[1].sink().send("hello".getBytes(StandardCharsets.UTF_8)).await();
                ends[0].sink().send("unread".getBytes(StandardCharsets.UTF_8)).await();
                ctx.sleep(Duration.ofMillis(20));
                ends[1].close(); // with "unread" unread: a reset
                ctx.sleep(Duration.ofMillis(20));
                try {
                    byte[] hello = ctx.timeout(Duration.ofSeconds(2), () -> ends[0].stream().recv(5).await());
                    assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), hello);
                    assertThrows(RecvFailedException.class,
                            () -> ctx.timeout(Duration.ofSeconds(2), () -> ends[0].stream().recv(1).await()));
                } finally {
                    ends[0].close();
                }
            }
            return null;
        });
    }
}
