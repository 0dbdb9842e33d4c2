package dev.lockstep.conformance;

import static dev.lockstep.Turns.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.AbortedException;
import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.TimeoutException;
import dev.lockstep.Turns;
import dev.lockstep.sync.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code Thread.interrupt()} means to a Lockstep wait, on every runtime (the rule is {@link Operation}'s).
 *
 * <p>In a task a wait is not ended by an interrupt: the fiber parks properly and the wait returns as it would
 * have, the status still set. Before, a task whose status was set — a library's
 * {@code catch (InterruptedException e) { Thread.currentThread().interrupt(); }} — spun in its first wait (the
 * JDK's park returns at once while the status is set), so its worker never turned and {@code start} never returned;
 * each case here then failed by its timeout. On a plain thread an interrupt ends the wait with
 * {@link AbortedException} and closes the operation; before, the thread spun at full CPU for ever.
 */
@org.junit.jupiter.api.Tag("adversarial")
@Group(ReadmeGroup.INTERRUPTS)
class InterruptConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final Duration NAP = Duration.ofMillis(10);

    /** What a library that swallows an InterruptedException the polite way leaves behind. */
    private static void libraryRestoresTheInterruptStatus() {
        try {
            throw new InterruptedException("a library's blocking call was interrupted");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the status was still set; clears it, so that nothing after the check sees it. */
    private static boolean statusWasKept() {
        return Thread.interrupted();
    }

    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAnInterruptedTaskSleepsForTheWholeDurationAndKeepsItsStatus(Runtimes rt) {
        String outcome = rt.runner().start(ctx -> {
            libraryRestoresTheInterruptStatus();
            Instant before = ctx.now();
            ctx.sleep(NAP);
            Duration slept = Duration.between(before, ctx.now());
            boolean kept = statusWasKept();
            return "slept the whole nap " + (slept.compareTo(NAP) >= 0) + ", status kept " + kept;
        });
        assertEquals("slept the whole nap true, status kept true", outcome);
    }

    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAnInterruptedTaskAwaitsStorageIo(Runtimes rt) {
        String read = rt.runner().start(ctx -> {
            try (Blob blob = ctx.open("interrupts", "blob").await().blob()) {
                libraryRestoresTheInterruptStatus();
                blob.writeAt(0, "kept".getBytes()).await();
                blob.sync().await();
                String back = new String(blob.readAt(0, 4).await());
                assertTrue(statusWasKept(), "the status survives three waits on storage");
                return back;
            }
        });
        assertEquals("kept", read);
    }

    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAnInterruptedTaskAwaitsAReceiveAndItsTimeoutStillFires(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await();
                    Connection client = ctx.dial(listener.localAddress()).await();
                    Connection server = listener.accept().await()) {
                Handle<Void> sender = ctx.child("sender").spawn(c -> {
                    c.sleep(NAP);
                    client.sink().send(new byte[] {1, 2, 3}).await();
                    return null;
                });
                libraryRestoresTheInterruptStatus();
                assertArrayEquals(new byte[] {1, 2, 3}, server.stream().recv(3).await(),
                        "the receive waited for the sender's bytes");
                sender.await();
                assertThrows(TimeoutException.class,
                        () -> ctx.timeout(NAP, () -> server.stream().recv(1).await()),
                        "a timeout still ends an interrupted task's wait");
                assertTrue(statusWasKept(), "the status survives the receive, the handle and the timeout");
            }
            return null;
        });
    }

    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAnInterruptedTaskAwaitsAChannel(Runtimes rt) {
        int workers = rt.config().workers();
        String received = rt.runner().start(ctx -> {
            Channel<String> channel = Channel.bounded(1);
            Handle<Void> sender = ctx.child("sender").spawnOn(workers - 1, c -> {
                c.sleep(NAP);
                channel.send("value").await();
                return null;
            });
            libraryRestoresTheInterruptStatus();
            String value = channel.receive().await();
            sender.await();
            assertTrue(statusWasKept(), "the status survives the channel and the handle");
            return value;
        });
        assertEquals("value", received);
    }

    /** An interrupt from a sibling while the task waits wakes nothing: the sleep lasts, the status is kept. */
    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAnInterruptDuringATasksSleepDoesNotEndIt(Runtimes rt) {
        int workers = rt.config().workers();
        String outcome = rt.runner().start(ctx -> {
            AtomicReference<Thread> sleeperThread = new AtomicReference<>();
            Handle<String> sleeper = ctx.child("sleeper").spawnOn(workers - 1, c -> {
                sleeperThread.set(Thread.currentThread());
                Instant before = c.now();
                c.sleep(NAP.multipliedBy(5));
                Duration slept = Duration.between(before, c.now());
                return "slept " + (slept.compareTo(NAP.multipliedBy(5)) >= 0) + ", status kept " + statusWasKept();
            });
            until(ctx, "the sleeper started", () -> sleeperThread.get() != null);
            ctx.sleep(NAP);
            sleeperThread.get().interrupt();
            return sleeper.await();
        });
        assertEquals("slept true, status kept true", outcome);
    }

    /** A plain thread interrupted while it awaits an operation: AbortedException, status kept, operation closed. */
    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAPlainThreadInterruptedWhileAwaitingIsAbortedAndTheOperationClosed(Runtimes rt) {
        rt.runner().start(ctx -> {
            Operation<Void> longSleep = ctx.sleeper(Duration.ofDays(1));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> kept = new AtomicReference<>();
            Turns.Started plain = Turns.startPlain(() -> {
                try {
                    longSleep.await();
                } catch (Throwable t) {
                    thrown.set(t);
                }
                kept.set(Thread.currentThread().isInterrupted());
            });
            until(ctx, "the plain thread waits", () -> plain.state() == Thread.State.WAITING);
            plain.interrupt();
            plain.join(ctx);
            assertInstanceOf(AbortedException.class, thrown.get());
            assertTrue(kept.get(), "the plain thread's status is kept");
            assertThrows(ClosedException.class, longSleep::await, "the interrupted wait closed the operation");
            return null;
        });
    }

    /**
     * A plain thread whose status is set before it waits: a ready result is returned, a pending one is aborted —
     * for a task's handle and a channel's receive alike — and the status stays set throughout.
     */
    @Conformance
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void testAPlainThreadWithItsStatusSetGetsReadyResultsAndDoesNotWait(Runtimes rt) {
        String outcome = rt.runner().start(ctx -> {
            Channel<String> channel = Channel.bounded(1);
            channel.send("ready").await();
            Operation<String> readyReceive = channel.receive();
            Operation<String> pendingReceive = channel.receive();
            Handle<String> finished = ctx.child("finished").spawn(c -> "done");
            finished.await();
            Handle<Void> sleeping = ctx.child("sleeping").spawn(c -> {
                c.sleep(Duration.ofDays(1));
                return null;
            });
            AtomicReference<String> seen = new AtomicReference<>();
            Turns.startPlain(() -> {
                Thread.currentThread().interrupt();
                StringBuilder plain = new StringBuilder();
                plain.append(finished.await()).append(", ").append(readyReceive.await());
                try {
                    pendingReceive.await();
                } catch (AbortedException aborted) {
                    plain.append(", receive aborted");
                }
                try {
                    sleeping.await();
                } catch (AbortedException aborted) {
                    plain.append(", handle aborted");
                }
                seen.set(plain.append(", status kept ").append(Thread.interrupted()).toString());
            }).join(ctx);
            assertFalse(sleeping.isDone(), "an interrupted wait for a handle leaves its task running");
            sleeping.abort();
            assertThrows(ClosedException.class, pendingReceive::await, "the aborted receive is closed");
            channel.send("later").await();
            assertEquals("later", channel.tryReceive(), "the closed receive took nothing sent later");
            return seen.get();
        });
        assertEquals("done, ready, receive aborted, handle aborted, status kept true", outcome);
    }
}
