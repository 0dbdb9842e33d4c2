package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.NetworkException;
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
 * The runner's account of received bytes where threads meet, on io_uring with three workers: each server stream
 * receives short messages out of bursts, so its receives read ahead and keep the surplus, while a plain thread
 * closes the stream after a random number of receives — so the close lands while a receive is charging its
 * array, keeping bytes read ahead, or taking them for the next receive. {@code EngineStream.keepAhead} and
 * {@code close} meet under the stream's lock: either the close sees the bytes kept and gives them back, or they
 * are never kept.
 *
 * <p>What a user relies on: once every stream is closed and its receives ended, the runner holds nothing
 * ({@link UringRunner#receiveBufferBytes()} is 0, read inside the run, before the runner's own closes could hide a
 * leak), and every receive before the close returned the bytes sent, in order.
 */
@Timeout(60)
class UringReceiveMemoryStressTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int WORKERS = 3;
    private static final int CONNECTIONS = 48;
    private static final int MOST_RECEIVES = 400;
    /** Each send is a burst of this many bytes, numbered byte by byte. */
    private static final int BURST = 2_000;

    @Test
    void theAccountComesBackToZeroWhateverACloseRacesWith() throws Exception {
        AtomicReference<String> problem = new AtomicReference<>();
        List<Thread> closers = new ArrayList<>();
        long[] heldAtTheEnd = {-1};
        UringRunner runner = UringRunner.builder().workers(WORKERS).ringEntries(32).build();
        runner.start(ctx -> {
            SplittableRandom random = new SplittableRandom(31);
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                List<Handle<Void>> servers = new ArrayList<>();
                List<Handle<Void>> clients = new ArrayList<>();
                for (int c = 0; c < CONNECTIONS; c++) {
                    var accepted = listener.accept();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    Connection server = accepted.await();
                    CountDownLatch receives = new CountDownLatch(random.nextInt(1, MOST_RECEIVES));
                    long seed = random.nextLong();
                    servers.add(ctx.child("server").spawnOn(c % WORKERS,
                            s -> receive(server, receives, new SplittableRandom(seed), problem)));
                    clients.add(ctx.child("client").spawnOn((c + 1) % WORKERS, k -> send(client)));
                    Thread closer = Thread.ofPlatform().name("closer-" + c).start(() -> {
                        try {
                            receives.await(30, TimeUnit.SECONDS);   // bounded; counted down however receiving ends
                        } catch (InterruptedException interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        server.stream().close();
                    });
                    closers.add(closer);
                }
                for (Handle<Void> server : servers) {
                    server.await();
                }
                for (Handle<Void> client : clients) {
                    client.await();
                }
                heldAtTheEnd[0] = runner.receiveBufferBytes();
            }
            return null;
        });
        for (Thread closer : closers) {
            closer.join(java.time.Duration.ofSeconds(30));
            assertTrue(!closer.isAlive(), closer.getName() + " did not finish");
        }
        assertNull(problem.get());
        assertEquals(0, heldAtTheEnd[0], "bytes still accounted once every stream closed");
        assertEquals(0, runner.receiveBufferBytes());
    }

    /**
     * Receives messages of 1 to 300 bytes, checking the numbering, until the plain thread's close ends a receive;
     * then closes the connection, which ends its client.
     */
    private static Void receive(Connection server, CountDownLatch receives, SplittableRandom random,
            AtomicReference<String> problem) {
        long expected = 0;
        try (server) {
            while (true) {
                byte[] message = server.stream().recv(random.nextInt(1, 300)).await();
                for (byte b : message) {
                    if (b != (byte) expected++) {
                        problem.compareAndSet(null, "byte " + (expected - 1) + " was " + b);
                        return null;
                    }
                }
                receives.countDown();   // never blocks: a fiber may call it
            }
        } catch (ClosedException closed) {
            return null;
        } catch (RuntimeException other) {
            problem.compareAndSet(null, "receiving ended with " + other + " instead of ClosedException");
            return null;
        } finally {
            while (receives.getCount() > 0) {
                receives.countDown();
            }
        }
    }

    /** Sends numbered bursts until the server closes the connection. */
    private static Void send(Connection client) {
        try (client) {
            for (long n = 0; ; n += BURST) {
                byte[] burst = new byte[BURST];
                for (int i = 0; i < BURST; i++) {
                    burst[i] = (byte) (n + i);
                }
                client.sink().send(burst).await();
            }
        } catch (NetworkException | ClosedException serverClosed) {
            return null;
        }
    }
}
