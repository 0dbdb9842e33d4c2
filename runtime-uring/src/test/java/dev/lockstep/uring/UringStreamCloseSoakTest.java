package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream closed by a plain thread while its receives come and go on a worker: the cross-thread close of a
 * stream's pending receives ({@code PendingSet}) against the receive requests the stream reuses one after another
 * ({@code Spare}), on io_uring with three workers. Each connection's echo loop runs on one worker (receiving into
 * a buffer and into new arrays, in turn), its client on another, and a plain thread closes the server's stream
 * once a random number of echoes went through — so the close lands while a receive is being admitted, is in the
 * kernel, is completing or has just retired and is about to be reused.
 *
 * <p>What a user relies on: close means close — the echo loop's receive, pending or next, fails with
 * {@link ClosedException} and nothing hangs; a close of one stream closes nothing else (the client's receives on
 * the same workers end only because the server then closed the connection); every echo before the close carried
 * the bytes sent; and no fd or buffer is left behind, nor a receive buffer the kernel selected.
 */
@Timeout(60)
class UringStreamCloseSoakTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int WORKERS = 3;
    private static final int CONNECTIONS = 48;
    private static final int MESSAGE = 64;
    /** The most echoes before a stream is closed; each connection draws its own count below it. */
    private static final int MOST_ECHOES = 300;

    @Test
    void aStreamClosedFromAPlainThreadClosesItsReceiveAndNothingElse() throws Exception {
        CloseSoak soak = new CloseSoak(WORKERS);
        List<UringRing> rings = new java.util.concurrent.CopyOnWriteArrayList<>();
        UringRunner.builder().workers(WORKERS).ringEntries(32).ringOpened(rings::add).build().start(ctx -> {
            SplittableRandom random = new SplittableRandom(23);
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                List<Handle<String>> endings = new ArrayList<>();
                for (int c = 0; c < CONNECTIONS; c++) {
                    var accepted = listener.accept();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    Connection server = accepted.await();
                    int serverWorker = c % WORKERS;
                    int clientWorker = (c + 1) % WORKERS;
                    CountDownLatch echoes = new CountDownLatch(random.nextInt(MOST_ECHOES));
                    endings.add(ctx.child("echo").spawnOn(serverWorker, e -> echo(e, server, echoes)));
                    endings.add(ctx.child("client").spawnOn(clientWorker,
                            k -> CloseSoak.client(client, -1, MESSAGE)));
                    soak.closeAfter("closer-" + c, echoes, Duration.ofSeconds(30), server.stream());
                }
                soak.awaitEndings(endings);
            }
            soak.countBuffers(ctx);
            return null;
        });
        soak.assertNothingLeft();
        assertEquals(WORKERS, rings.size());
        for (UringRing ring : rings) {
            // Read after the run: the rings' threads have ended.
            assertEquals(0, ring.receiveSelection().lent(), "selected receive buffers not given back to " + ring);
        }
    }

    /**
     * Echoes message after message, receiving into a buffer and into a new array in turn, until a receive fails:
     * it must fail because the stream was closed. Then closes the connection, which ends its client.
     *
     * @return null, or what went wrong
     */
    private static String echo(dev.lockstep.Context ctx, Connection server, CountDownLatch echoes) {
        try (server; IoBuffer buffer = ctx.buffers().allocate(MESSAGE)) {
            for (long n = 0; ; n++) {
                if (n % 2 == 0) {
                    server.stream().recvInto(buffer, 0, MESSAGE).await();
                    server.sink().sendFrom(buffer, 0, MESSAGE).await();
                } else {
                    server.sink().send(server.stream().recv(MESSAGE).await()).await();
                }
                // Counting down never blocks: a fiber may call it.
                echoes.countDown();
            }
        } catch (ClosedException closed) {
            return null;
        } catch (RuntimeException other) {
            return "the echo loop ended with " + other + " instead of ClosedException";
        } finally {
            while (echoes.getCount() > 0) {
                echoes.countDown();
            }
        }
    }
}
