package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.IoBuffer;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.SendFailedException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
        int fdsBefore = OpenDescriptors.fdCount();
        AtomicReference<String> problem = new AtomicReference<>();
        List<Thread> closers = new ArrayList<>();
        int[] outstandingBuffers = new int[WORKERS];
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
                    int closeAfter = random.nextInt(MOST_ECHOES);
                    CountDownLatch echoes = new CountDownLatch(closeAfter);
                    endings.add(ctx.child("echo").spawnOn(serverWorker, e -> echo(e, server, echoes)));
                    endings.add(ctx.child("client").spawnOn(clientWorker, k -> client(client, problem)));
                    Thread closer = Thread.ofPlatform().name("closer-" + c).start(() -> {
                        // Bounded: the echo loop counts every echo down and, however it ends, the rest.
                        try {
                            echoes.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        server.stream().close();
                    });
                    closers.add(closer);
                }
                for (Handle<String> ending : endings) {
                    String how = ending.await();
                    if (how != null) {
                        problem.compareAndSet(null, how);
                    }
                }
            }
            for (int w = 0; w < WORKERS; w++) {
                outstandingBuffers[w] = ctx.child("count").spawnOn(w, b -> b.buffers().outstanding()).await();
            }
            return null;
        });
        for (Thread closer : closers) {
            closer.join(java.time.Duration.ofSeconds(30));
            assertTrue(!closer.isAlive(), closer.getName() + " did not finish");
        }
        assertNull(problem.get());
        for (int w = 0; w < WORKERS; w++) {
            assertEquals(0, outstandingBuffers[w], "buffers of worker " + w + " not returned");
        }
        assertEquals(WORKERS, rings.size());
        for (UringRing ring : rings) {
            // Read after the run: the rings' threads have ended.
            assertEquals(0, ring.receiveSelection().lent(), "selected receive buffers not given back to " + ring);
        }
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "fds leaked: " + OpenDescriptors.fds());
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

    /**
     * Sends numbered messages and checks each echo until the server closes the connection: the only way this
     * loop may end (a receive that reads the end, or a send the peer reset).
     *
     * @return null, or what went wrong
     */
    private static String client(Connection client, AtomicReference<String> problem) {
        try (client) {
            for (long n = 0; ; n++) {
                byte[] message = new byte[MESSAGE];
                java.util.Arrays.fill(message, (byte) n);
                message[0] = (byte) (n >>> 8);
                client.sink().send(message).await();
                byte[] echo = client.stream().recv(MESSAGE).await();
                if (!java.util.Arrays.equals(message, echo)) {
                    return "echo " + n + " differed from the message sent";
                }
            }
        } catch (RecvFailedException | SendFailedException serverClosed) {
            // The server closed: the echo's receive saw the end, or the next send was reset.
            return null;
        } catch (RuntimeException other) {
            return "the client ended with " + other + " instead of the server closing the connection";
        }
    }
}
