package dev.lockstep.uring;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
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
 * The one hazard of the calls that wait themselves ({@code Stream.recvFully}, {@code Sink.sendFully}): a fiber
 * reuses one operation for all of them, so a stream's close that a plain thread makes while the fiber moves from
 * a receive on that stream to its next call must close the receive it was made for and never the call the fiber
 * has moved on to. On io_uring with three workers, each echo fiber serves two connections in turn — a doomed one,
 * whose stream a plain thread closes after a random number of echoes, and a steady one, never closed — with
 * {@code recvFully} and {@code sendFully} only.
 *
 * <p>The exact interleaving that would go wrong — the close takes its snapshot, the fiber's receive completes and
 * the fiber re-points the operation at its next call, then the close closes — is a few instructions wide, so this
 * soak seldom hits it; {@code PendingSetModelTest} explores it under Lincheck (200 interleavings, and it finds
 * that race when the close uses the key the operation names now instead of the one it tracked). This test is the
 * whole on real threads: plain-thread closes, three workers, the waiting calls end to end.
 *
 * <p>What a user relies on: the doomed receive ends with {@link ClosedException} and nothing hangs; the steady
 * connection's every echo goes through with the bytes sent, before and after the other stream's close (a close
 * that reached the fiber's next call would fail it); no fd or buffer is left behind.
 */
@Timeout(90)
class UringWaitingCallsCloseSoakTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int WORKERS = 3;
    private static final int PAIRS = 24;
    private static final int MESSAGE = 64;
    /** The most doomed echoes before its stream is closed; each pair draws its own count below it. */
    private static final int MOST_DOOMED_ECHOES = 200;
    /** Echoes on each steady connection: more than any doomed one sees, so most closes land mid-run. */
    private static final int STEADY_ECHOES = 300;

    @Test
    void aStreamClosedFromAPlainThreadNeverClosesTheCallTheFiberMovedOnTo() throws Exception {
        CloseSoak soak = new CloseSoak(WORKERS);
        UringRunner.builder().workers(WORKERS).ringEntries(32).build().start(ctx -> {
            SplittableRandom random = new SplittableRandom(31);
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                List<Handle<String>> endings = new ArrayList<>();
                for (int p = 0; p < PAIRS; p++) {
                    var doomedAccepted = listener.accept();
                    Connection doomedClient = ctx.dial(listener.localAddress()).await();
                    Connection doomed = doomedAccepted.await();
                    var steadyAccepted = listener.accept();
                    Connection steadyClient = ctx.dial(listener.localAddress()).await();
                    Connection steady = steadyAccepted.await();
                    int serverWorker = p % WORKERS;
                    int clientWorker = (p + 1) % WORKERS;
                    CountDownLatch echoes = new CountDownLatch(random.nextInt(MOST_DOOMED_ECHOES));
                    endings.add(ctx.child("echo").spawnOn(serverWorker, e -> echo(e, doomed, steady, echoes)));
                    endings.add(ctx.child("doomed").spawnOn(clientWorker,
                            k -> CloseSoak.client(doomedClient, -1, MESSAGE)));
                    endings.add(ctx.child("steady").spawnOn(clientWorker,
                            k -> CloseSoak.client(steadyClient, STEADY_ECHOES, MESSAGE)));
                    soak.closeAfter("closer-" + p, echoes, Duration.ofSeconds(60), doomed.stream());
                }
                soak.awaitEndings(endings);
            }
            soak.countBuffers(ctx);
            return null;
        });
        soak.assertNothingLeft();
    }

    /**
     * Echoes a doomed message, then a steady one, in turn, with the waiting calls only, until the steady client is
     * done: the doomed stream may only end by its close ({@link ClosedException}), the steady one only by its
     * client's end after all its echoes.
     *
     * @return null, or what went wrong
     */
    private static String echo(Context ctx, Connection doomed, Connection steady, CountDownLatch echoes) {
        int steadyEchoes = 0;
        try (doomed; steady; IoBuffer fromDoomed = ctx.buffers().allocate(MESSAGE);
             IoBuffer fromSteady = ctx.buffers().allocate(MESSAGE)) {
            boolean doomedOpen = true;
            while (true) {
                if (doomedOpen) {
                    try {
                        doomed.stream().recvFully(fromDoomed, 0, MESSAGE);
                        doomed.sink().sendFully(fromDoomed, 0, MESSAGE);
                        echoes.countDown();
                    } catch (ClosedException closed) {
                        doomedOpen = false;
                        doomed.close(); // ends its client
                    }
                }
                try {
                    steady.stream().recvFully(fromSteady, 0, MESSAGE);
                } catch (RecvFailedException clientDone) {
                    return steadyEchoes == STEADY_ECHOES ? null : "the steady client ended after " + steadyEchoes
                            + " echoes";
                }
                steady.sink().sendFully(fromSteady, 0, MESSAGE);
                steadyEchoes++;
            }
        } catch (RuntimeException other) {
            return "the echo loop failed after " + steadyEchoes + " steady echoes with " + other;
        } finally {
            while (echoes.getCount() > 0) {
                echoes.countDown();
            }
        }
    }
}
