package dev.lockstep.engine.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.TimeoutException;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.uring.UringRunner;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * On io_uring a fiber that awaits a request completing later (a receive) with nothing else of its worker to run
 * waits in the ring itself instead of parking ({@link InlineTurns#turn}), and that wait still ends for everything
 * a service turn's wait ends for: the completion, the worker's next timer, and work queued for the worker from
 * another thread or worker (whose wake-up, sent after the work was queued, must not be lost).
 */
class UringInlineWaitTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int MESSAGES = 200;

    @Test
    void aLoneFiberReceivingFromAPeerWaitsInTheRingWithoutParking() throws Exception {
        int[] mounts = new int[1];
        UringRunner.builder().workers(1).ringEntries(8).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                InetSocketAddress address = listener.localAddress();
                Thread peer = Thread.ofPlatform().start(() -> {
                    try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
                        OutputStream out = socket.getOutputStream();
                        InputStream in = socket.getInputStream();
                        for (int i = 0; i < MESSAGES; i++) {
                            out.write(i);
                            out.flush();
                            if (in.read() != i) {
                                throw new AssertionError("echo " + i);
                            }
                        }
                    } catch (java.io.IOException failed) {
                        throw new java.io.UncheckedIOException(failed);
                    }
                });
                try (Connection server = listener.accept().await()) {
                    Fiber self = Fibers.current();
                    int before = self.mounts();
                    for (int i = 0; i < MESSAGES; i++) {
                        byte[] message = server.stream().recv(1).await();
                        assertArrayEquals(new byte[] {(byte) i}, message);
                        server.sink().send(message).await();
                    }
                    mounts[0] = self.mounts() - before;
                }
                peer.join();
            }
            return null;
        });
        // Each receive waits for the peer, who waits for the echo: parking would mount the fiber once per message.
        int allowed = 2 * MESSAGES / InlineTurns.PER_SERVICE + 4;
        assertTrue(mounts[0] <= allowed, mounts[0] + " mounts for " + MESSAGES + " receives, at most " + allowed);
    }

    @Test
    void aFiberWaitingInTheRingStillRunsWorkSentFromAnotherWorkerAndItsTimersFire() {
        UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                InetSocketAddress address = listener.localAddress();
                // The client lives on worker 1; worker 0 (this fiber's) receives.
                Connection client = ctx.child("dialer").spawnOn(1, c -> c.dial(address).await()).await();
                try (Connection server = listener.accept().await()) {
                    // A fiber of worker 1 puts a task on worker 0 while this one waits in worker 0's ring: only
                    // that task's send can end the wait, so a lost wake-up would hang here.
                    ctx.child("later").spawnOn(1, c -> {
                        c.sleep(Duration.ofMillis(20));
                        c.child("waker").spawnOn(0, w -> {
                            client.sink().send(new byte[] {42}).await();
                            return null;
                        }).await();
                        return null;
                    });
                    assertArrayEquals(new byte[] {42}, server.stream().recv(1).await());
                    // Nobody sends now: this fiber waits in worker 0's ring until the timeout's timer is due (the
                    // cancelled receive leaves the stream unusable, so this comes last).
                    assertThrows(TimeoutException.class,
                            () -> ctx.timeout(Duration.ofMillis(20), () -> server.stream().recv(1).await()));
                } finally {
                    client.close();
                }
            }
            return null;
        });
    }

    /**
     * An abort from another worker, or from a plain thread, ends a fiber's wait in its ring: the aborted task's
     * receive from a silent peer is closed and its await throws {@link ClosedException}, instead of the abort
     * waiting for bytes that never come.
     */
    @Test
    void anAbortFromElsewhereEndsAWaitInTheRing() throws Exception {
        UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            for (int round = 0; round < 2; round++) {
                boolean fromPlainThread = round == 1;
                Fiber[] waiter = new Fiber[1];
                var receiver = ctx.child("receiver").spawnOn(1, c -> {
                    try (Listener listener = c.bind(LOOPBACK).await()) {
                        var accepted = listener.accept();
                        try (Connection silent = c.dial(listener.localAddress()).await();
                             Connection server = accepted.await()) {
                            waiter[0] = Fibers.current();
                            return server.stream().recv(1).await();
                        }
                    }
                });
                // Until the receiver waits: mounted, inside its ring's wait (it is worker 1's only fiber).
                boolean waiting = false;
                for (int look = 0; look < 10_000 && !waiting; look++) {
                    ctx.sleep(Duration.ofMillis(1));
                    Fiber fiber = waiter[0];
                    waiting = fiber != null && java.util.Arrays.toString(fiber.thread().getStackTrace())
                            .contains("InlineTurns.turn");
                }
                assertTrue(waiting, "the receiver never waited in its ring");
                if (fromPlainThread) {
                    Thread.ofPlatform().start(receiver::abort).join();
                } else {
                    receiver.abort();
                }
                assertThrows(ClosedException.class, receiver::await);
            }
            return null;
        });
    }
}
