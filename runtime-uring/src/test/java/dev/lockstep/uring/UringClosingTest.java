package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Close means close and results own their resources, with real threads on io_uring: a plain thread awaiting an
 * operation is woken by a close from a fiber of another worker, and a fiber by a close from a plain thread; a
 * listener closed while an accept waits refuses the next dial; and when {@code start} returns, the fds of every
 * blob, listener and connection the run left open, and of a completed accept nobody observed, are closed. Before,
 * the awaiting thread stayed parked (4 s and more), the closed listener still accepted, and the fds stayed open.
 */
@Timeout(30)
class UringClosingTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Lets the calling fiber's worker run until {@code condition} holds (the test timeout guards a hang). */
    private static void until(Context ctx, BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    @Test
    void aPlainThreadAwaitingIsWokenByACloseFromAFiberOfAnotherWorker() {
        String outcome = UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                Operation<Connection> accepting = listener.accept();
                AtomicReference<String> seen = new AtomicReference<>();
                Thread awaiter = Thread.ofPlatform().name("plain-awaiter").start(() -> {
                    try {
                        accepting.await().close();
                        seen.set("accepted");
                    } catch (ClosedException closed) {
                        seen.set("closed");
                    }
                });
                // The plain thread is parked in await once its forward reached the owner; then close elsewhere.
                until(ctx, () -> awaiter.getState() == Thread.State.WAITING);
                Handle<Void> closer = ctx.child("closer").spawnOn(1, c -> {
                    accepting.close();
                    return null;
                });
                closer.await();
                until(ctx, () -> seen.get() != null);
                return seen.get();
            }
        });
        assertEquals("closed", outcome);
    }

    @Test
    void aFiberAwaitingIsWokenByACloseFromAPlainThread() {
        String outcome = UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            try (Listener listener = ctx.bind(LOOPBACK).await()) {
                AtomicReference<Operation<Connection>> accepting = new AtomicReference<>();
                Handle<String> awaiter = ctx.child("awaiter").spawnOn(1, c -> {
                    Operation<Connection> operation = listener.accept();
                    accepting.set(operation);
                    try {
                        operation.await().close();
                        return "accepted";
                    } catch (ClosedException closed) {
                        return "closed";
                    }
                });
                until(ctx, () -> accepting.get() != null);
                ctx.sleep(Duration.ofMillis(5));
                Thread closer = Thread.ofPlatform().name("plain-closer").start(() -> accepting.get().close());
                String result = awaiter.await();
                until(ctx, () -> !closer.isAlive());
                return result;
            }
        });
        assertEquals("closed", outcome);
    }

    @Test
    void aListenerClosedWhileAnAcceptWaitsAcceptsNothingMore() throws Exception {
        int before = OpenDescriptors.fdCount();
        InetSocketAddress address = UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
            Listener listener = ctx.bind(LOOPBACK).await();
            Handle<String> awaiter = ctx.child("awaiter").spawnOn(1, c -> {
                try {
                    listener.accept().await().close();
                    return "accepted";
                } catch (ClosedException closed) {
                    return "closed";
                }
            });
            ctx.sleep(Duration.ofMillis(5));
            listener.close();
            assertEquals("closed", awaiter.await(), "the pending accept was closed with its listener");
            return listener.localAddress();
        });
        assertEquals(before, OpenDescriptors.fdCount(), "the listening socket is closed");
        try (Socket refused = new Socket()) {
            assertThrows(ConnectException.class, () -> refused.connect(address, 2_000));
        }
    }

    @Test
    void everythingTheRunLeftOpenIsClosedWhenStartReturns(@TempDir Path storage) throws IOException {
        int fdsBefore = OpenDescriptors.fdCount();
        int ringsBefore = OpenDescriptors.ringMappings().size();
        int opened = UringRunner.builder().workers(2).ringEntries(8).storage(storage).build().start(ctx -> {
            int base = OpenDescriptors.fdCount();
            Blob blob = ctx.open("left", "open").await().blob();
            blob.writeAt(0, new byte[] {1}).await();
            Listener listener = ctx.bind(LOOPBACK).await();
            Operation<Connection> accepting = listener.accept();
            Connection client = ctx.dial(listener.localAddress()).await();
            Connection server = accepting.await();
            server.sink().send(new byte[] {2}).await();
            // Completed and never observed when the run ends: the worker's retirement must close its socket.
            Operation<Connection> unobserved = listener.accept();
            Handle<Connection> otherDial = ctx.child("dialer").spawnOn(1, c -> c.dial(listener.localAddress()).await());
            Connection second = otherDial.await();
            assertEquals(2, client.stream().recv(1).await()[0]);
            assertEquals(listener.localAddress(), second.peer());
            // The second accept completes in the kernel; nobody polls it.
            until(ctx, () -> OpenDescriptors.fdCount() >= base + 6);
            return OpenDescriptors.fdCount() - base;
        });
        assertTrue(opened >= 6, "blob, listener, two dialled and two accepted sockets were open: " + opened);
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "start closed every fd the run left open");
        assertEquals(ringsBefore, OpenDescriptors.ringMappings().size(), "every ring is unmapped");
    }

    /**
     * Interrupting the thread in {@code start} aborts the run on io_uring too: a fiber on each worker parked in a
     * day-long accept or sleep is woken, {@code start} throws {@link dev.lockstep.AbortedException} with the
     * interrupt status set, and the listener's fd and the rings are gone — so a caller's deadline (a test
     * timeout, a shutdown hook) always gets {@code start} back.
     */
    @Test
    void anInterruptedStartAbortsTheRunAndReleasesItsFds() throws Exception {
        int fdsBefore = OpenDescriptors.fdCount();
        int ringsBefore = OpenDescriptors.ringMappings().size();
        java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean interruptStatus = new java.util.concurrent.atomic.AtomicBoolean();
        Thread starter = Thread.ofPlatform().name("starter").start(() -> {
            try {
                UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
                    Listener listener = ctx.bind(LOOPBACK).await(); // left open: start closes it
                    Handle<Void> sleeper = ctx.child("sleeper").spawnOn(1, c -> {
                        waiting.countDown();
                        c.sleep(Duration.ofDays(1));
                        return null;
                    });
                    waiting.countDown();
                    listener.accept().await();
                    return sleeper.await();
                });
            } catch (Throwable t) {
                failure.set(t);
            }
            interruptStatus.set(Thread.currentThread().isInterrupted());
        });
        assertTrue(waiting.await(10, java.util.concurrent.TimeUnit.SECONDS));
        starter.interrupt();
        assertTrue(starter.join(Duration.ofSeconds(20)), "start ended after the interrupt");
        assertTrue(failure.get() instanceof dev.lockstep.AbortedException, String.valueOf(failure.get()));
        assertTrue(interruptStatus.get());
        assertEquals(fdsBefore, OpenDescriptors.fdCount());
        assertEquals(ringsBefore, OpenDescriptors.ringMappings().size());
    }
}
