package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.ReceiveLimitException;
import dev.lockstep.ReceiveLimits;
import dev.lockstep.RecvFailedException;
import dev.lockstep.Runner;
import dev.lockstep.Stream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Memory a runner holds for received bytes grows with what arrived and stays within its {@link ReceiveLimits},
 * the same on every runtime: a receive of a long announced message holds about what came, a receive past the
 * per-connection bound and one that would take the runner past its bound fail with {@link ReceiveLimitException}
 * naming the bound and the length (other streams go on), and everything comes back when peers leave.
 */
@org.junit.jupiter.api.Tag("adversarial")
@Group(ReadmeGroup.RECEIVE_MEMORY)
class ReceiveMemoryConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static Connection[] pair(Context ctx, Listener listener) {
        Operation<Connection> accepted = listener.accept();
        Connection client = ctx.dial(listener.localAddress()).await();
        return new Connection[] {client, accepted.await()};
    }

    private static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        return bytes;
    }

    /** Waits (without a deadline of its own: the test's timeout bounds it) until the runner holds {@code bytes}. */
    private static void awaitHeld(Context ctx, LongSupplier buffered, long bytes) {
        while (buffered.getAsLong() < bytes) {
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    /**
     * A receive of 4 MiB whose peer has sent 32,000 bytes holds at most twice what arrived, not 4 MiB; it returns
     * the message whole once the rest comes, and then nothing is held. Before, the receive reserved its whole
     * length of heap (and of native memory) at its first submission.
     */
    @Conformance
    void testAReceiveHoldsWhatArrivedNotWhatWasAnnounced(Runtimes rt) {
        Runner runner = rt.runner();
        runner.start(ctx -> {
            LongSupplier buffered = () -> rt.probe().receiveBufferBytes(runner);
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] ends = pair(ctx, listener);
                int length = 4 << 20;
                byte[] message = pattern(length);
                Operation<byte[]> pending = ends[1].stream().recv(length);
                assertEquals(0, buffered.getAsLong(), "held before a byte arrived");
                int sent = 0;
                for (int piece : new int[] {1_000, 1_000, 30_000}) {
                    ends[0].sink().send(Arrays.copyOfRange(message, sent, sent + piece)).await();
                    sent += piece;
                    awaitHeld(ctx, buffered, sent);
                    long held = buffered.getAsLong();
                    assertTrue(held <= 2L * sent, "held " + held + " bytes after " + sent + " of " + length
                            + " arrived");
                }
                ends[0].sink().send(Arrays.copyOfRange(message, sent, length)).await();
                assertArrayEquals(message, pending.await());
                assertEquals(0, buffered.getAsLong(), "held after the message was returned");
                ends[0].close();
                ends[1].close();
            }
            return null;
        });
    }

    /**
     * 32 peers each announce a maximal message and send 100 bytes: the runner holds at most twice the 3,200 bytes
     * that came, and when the peers leave every receive fails typed and nothing is held.
     */
    @Conformance
    void testPeersThatAnnounceMaximalMessagesCostWhatTheySentAndNothingOnceGone(Runtimes rt) {
        Runner runner = rt.runner();
        runner.start(ctx -> {
            LongSupplier buffered = () -> rt.probe().receiveBufferBytes(runner);
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                List<Connection[]> pairs = new ArrayList<>();
                List<Operation<byte[]>> receives = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    Connection[] ends = pair(ctx, listener);
                    pairs.add(ends);
                    receives.add(ends[1].stream().recv(Stream.MAX_RECV_BYTES));
                    ends[0].sink().send(new byte[100]).await();
                }
                awaitHeld(ctx, buffered, 32 * 100);
                long held = buffered.getAsLong();
                assertTrue(held <= 2 * 32 * 100, "32 peers that sent 100 bytes each hold " + held + " bytes");
                for (Connection[] ends : pairs) {
                    ends[0].close();
                }
                for (Operation<byte[]> receive : receives) {
                    assertThrows(RecvFailedException.class, receive::await);
                }
                assertEquals(0, buffered.getAsLong(), "held after the peers left");
                for (Connection[] ends : pairs) {
                    ends[1].close();
                }
            }
            return null;
        });
    }

    /**
     * Under a per-connection bound of 1,024 bytes, {@code recv(1025)} fails with {@link ReceiveLimitException}
     * naming both numbers and poisons its stream; another stream reads ahead no further than the bound and gets
     * its peer's 8,192 bytes whole through receives within it.
     */
    @Conformance
    void testAReceivePastThePerConnectionBoundIsRefusedAndReadAheadStaysWithinIt(Runtimes rt) {
        Runner runner = rt.runner(new ReceiveLimits(1_024, 1 << 20));
        runner.start(ctx -> {
            LongSupplier buffered = () -> rt.probe().receiveBufferBytes(runner);
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] refused = pair(ctx, listener);
                ReceiveLimitException tooLong = assertThrows(ReceiveLimitException.class,
                        () -> refused[1].stream().recv(1_025).await());
                assertEquals(1_024, tooLong.bound());
                assertEquals(1_025, tooLong.requested());
                assertTrue(tooLong.getMessage().contains("1024") && tooLong.getMessage().contains("1025"),
                        tooLong.getMessage());
                assertThrows(ClosedException.class, () -> refused[1].stream().recv(1).await());

                Connection[] served = pair(ctx, listener);
                byte[] message = pattern(8_192);
                served[0].sink().send(message).await();
                byte[] received = new byte[message.length];
                int at = 0;
                while (at < message.length) {
                    int piece = Math.min(1_000, message.length - at);
                    System.arraycopy(served[1].stream().recv(piece).await(), 0, received, at, piece);
                    at += piece;
                    int ahead = served[1].stream().peek(1 << 20).length;
                    assertTrue(ahead <= 1_024, "read " + ahead + " bytes ahead under a bound of 1024");
                    assertTrue(buffered.getAsLong() <= 1_024, "held " + buffered.getAsLong());
                }
                assertArrayEquals(message, received);
                for (Connection end : List.of(refused[0], refused[1], served[0], served[1])) {
                    end.close();
                }
                assertEquals(0, buffered.getAsLong(), "held after every stream closed");
            }
            return null;
        });
    }

    /**
     * Under a per-runner bound of 64 KiB, one receive holding 30,000 received bytes of a 40,000-byte message and a
     * second 40,000-byte message cannot both fit: the second receive fails with {@link ReceiveLimitException}
     * naming the bound and its length, and the first still gets its whole message.
     */
    @Conformance
    void testAReceivePastThePerRunnerBoundFailsAloneAndOthersGoOn(Runtimes rt) {
        Runner runner = rt.runner(new ReceiveLimits(Stream.MAX_RECV_BYTES, 64 << 10));
        runner.start(ctx -> {
            LongSupplier buffered = () -> rt.probe().receiveBufferBytes(runner);
            try (Listener listener = ctx.bind(ANY_PORT).await()) {
                Connection[] first = pair(ctx, listener);
                Connection[] second = pair(ctx, listener);
                byte[] message = pattern(40_000);
                Operation<byte[]> holding = first[1].stream().recv(message.length);
                first[0].sink().send(Arrays.copyOf(message, 30_000)).await();
                awaitHeld(ctx, buffered, 30_000);
                Operation<byte[]> refused = second[1].stream().recv(message.length);
                second[0].sink().send(message).await();
                ReceiveLimitException full = assertThrows(ReceiveLimitException.class, refused::await);
                assertEquals(64 << 10, full.bound());
                assertEquals(message.length, full.requested());
                assertTrue(full.getMessage().contains(Integer.toString(64 << 10)), full.getMessage());
                first[0].sink().send(Arrays.copyOfRange(message, 30_000, message.length)).await();
                assertArrayEquals(message, holding.await());
                for (Connection end : List.of(first[0], first[1], second[0], second[1])) {
                    end.close();
                }
                assertEquals(0, buffered.getAsLong(), "held after every stream closed");
            }
            return null;
        });
    }
}
