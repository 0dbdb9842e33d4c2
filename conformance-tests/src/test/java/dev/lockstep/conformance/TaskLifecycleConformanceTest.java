package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.ClosedException;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.sim.SimulationFailure;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a task's end leaves behind, the same on every runtime: a task's own exception is what {@code start}
 * reports even when the task left resources open (the simulator's leak check attaches its finding to that
 * exception as suppressed, and runtime-uring closes what is left); and a resource handed to a spawned task with
 * {@code spawn(resource, task)} is closed when the task ends, whether or not its body ever ran.
 */
@org.junit.jupiter.api.Tag("adversarial")
@Group(ReadmeGroup.TASK_LIFECYCLE)
class TaskLifecycleConformanceTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** The leak reports attached to {@code thrown}: none on runtime-uring, which has no leak check. */
    private static List<SimulationFailure> leakReports(Throwable thrown) {
        return Arrays.stream(thrown.getSuppressed()).filter(SimulationFailure.class::isInstance)
                .map(SimulationFailure.class::cast).toList();
    }

    private static void assertLeakNamed(Runtimes rt, Throwable thrown, String blobName) {
        List<SimulationFailure> leaks = leakReports(thrown);
        if (!rt.isSim()) {
            assertEquals(List.of(), leaks);
            return;
        }
        assertEquals(1, leaks.size(), () -> "suppressed: " + Arrays.toString(thrown.getSuppressed()));
        String message = leaks.getFirst().getMessage();
        assertTrue(message.contains("resource leak") && message.contains("blob 'p/" + blobName + "'")
                && message.contains("TaskLifecycleConformanceTest.java"), message);
    }

    /** A root that throws while holding an open blob: its own exception leaves start, unchanged. */
    @Conformance
    void aRootsExceptionWinsOverTheBlobItLeftOpen(Runtimes rt) {
        IllegalStateException mine = new IllegalStateException("the task's own failure");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> rt.runner().start(ctx -> {
            Blob held = ctx.open("p", "held-at-the-throw").await().blob();
            held.writeAt(0, "x".getBytes(StandardCharsets.UTF_8)).await();
            throw mine;
        }));
        assertSame(mine, thrown);
        assertLeakNamed(rt, thrown, "held-at-the-throw");
    }

    /** The same with a checked exception: start wraps it in ExitedException, whose cause is the task's. */
    @Conformance
    void aRootsCheckedExceptionWinsOverTheBlobItLeftOpen(Runtimes rt) {
        IOException mine = new IOException("the task's own checked failure");
        ExitedException thrown = assertThrows(ExitedException.class, () -> rt.runner().start(ctx -> {
            ctx.open("p", "held-at-the-checked-throw").await();
            throw mine;
        }));
        assertSame(mine, thrown.getCause());
        assertLeakNamed(rt, thrown, "held-at-the-checked-throw");
    }

    /**
     * The accept loop's race: the handler's supervisor is aborted between the accept and the handler's first step.
     * The body never runs, and the connection it was handed is closed (its peer sees the end of the stream).
     */
    @Conformance
    void aHandlerThatNeverRunsClosesTheConnectionItWasHanded(Runtimes rt) {
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await();
                    Connection client = ctx.dial(listener.localAddress()).await()) {
                Connection accepted = listener.accept().await();
                Context parent = ctx.child("parent");
                Context handlerContext = parent.child("handler");
                parent.spawn(p -> null).await(); // its end aborts every node below parent, the handler's too
                AtomicBoolean ran = new AtomicBoolean();
                Handle<Void> handler = handlerContext.spawn(accepted, h -> {
                    ran.set(true);
                    return null;
                });
                assertThrows(ClosedException.class, handler::await);
                assertFalse(ran.get(), "the body never ran");
                assertThrows(RecvFailedException.class, () -> client.stream().recv(1).await());
            }
            return null;
        });
    }

    /** The root returns right after the spawn: the handler is aborted, ran or not, and its connection closed. */
    @Conformance
    void aHandlerCutOffByTheEndOfTheRunClosesWhatItWasHanded(Runtimes rt) {
        AtomicInteger closes = new AtomicInteger();
        rt.runner().start(ctx -> {
            try (Listener listener = ctx.bind(ANY_PORT).await();
                    Connection client = ctx.dial(listener.localAddress()).await()) {
                Connection accepted = listener.accept().await();
                ctx.child("handler").spawn(() -> {
                    accepted.close();
                    closes.incrementAndGet();
                }, h -> {
                    h.sleep(java.time.Duration.ofDays(1));
                    return null;
                });
                return null;
            }
        });
        assertEquals(1, closes.get());
    }

    /**
     * Many handlers on every worker, each closing its resource exactly once whether it ran, was aborted mid-body by
     * the end of the run, or never ran: the close happens on the spawning thread or on the handler's own fiber,
     * once, whichever worker the handler was placed on.
     */
    @Conformance
    void manyHandlersOnEveryWorkerEachCloseWhatTheyOwnOnce(Runtimes rt) {
        int handlers = 200;
        java.util.concurrent.atomic.AtomicIntegerArray closes = new java.util.concurrent.atomic.AtomicIntegerArray(
                handlers);
        rt.runner().start(ctx -> {
            Context doomed = ctx.child("doomed");
            List<Context> neverRun = new ArrayList<>();
            for (int i = 0; i < handlers; i++) {
                int id = i;
                AutoCloseable owned = () -> closes.incrementAndGet(id);
                if (i % 3 == 0) {
                    neverRun.add(doomed.child("h" + i));
                    continue;
                }
                ctx.child("h" + i).spawn(owned, h -> {
                    h.sleep(java.time.Duration.ofMillis(id % 2 == 0 ? 0 : 1_000_000));
                    return null;
                });
            }
            doomed.spawn(d -> null).await(); // aborts every context taken from it
            for (int i = 0; i < neverRun.size(); i++) {
                int id = 3 * i;
                neverRun.get(i).spawn(() -> closes.incrementAndGet(id), h -> null);
            }
            return null; // the run's end aborts the handlers still sleeping
        });
        for (int i = 0; i < handlers; i++) {
            assertEquals(1, closes.get(i), "handler " + i);
        }
    }

    /** However the task ends, what it owns is closed once, after its body, as try-with-resources closes. */
    @Conformance
    void aSpawnedTaskClosesWhatItOwnsWhenItEnds(Runtimes rt) {
        rt.runner().start(ctx -> {
            List<String> events = Collections.synchronizedList(new ArrayList<>());
            assertEquals("returned", ctx.child("returns").spawn(() -> events.add("closed"), c -> {
                events.add("body");
                return "returned";
            }).await());
            assertEquals(List.of("body", "closed"), events);

            IllegalStateException closeFailure = new IllegalStateException("close failed");
            IOException bodyFailure = new IOException("body failed");
            ExitedException thrown = assertThrows(ExitedException.class, ctx.child("throws").spawn(() -> {
                throw closeFailure;
            }, c -> {
                throw bodyFailure;
            })::await);
            assertSame(bodyFailure, thrown.getCause());
            assertEquals(List.of(closeFailure), List.of(bodyFailure.getSuppressed()));

            ExitedException closeFailed = assertThrows(ExitedException.class, ctx.child("closeFails").spawn(() -> {
                throw closeFailure;
            }, c -> "returned")::await);
            assertSame(closeFailure, closeFailed.getCause());

            Context aborted = ctx.child("aborted");
            Context neverRuns = aborted.child("neverRuns");
            aborted.spawn(c -> null).await();
            ClosedException notRun = assertThrows(ClosedException.class, neverRuns.spawnOn(ctx.workers() - 1, () -> {
                throw closeFailure;
            }, c -> "ran")::await);
            assertEquals(List.of(closeFailure), List.of(notRun.getSuppressed()));

            Context used = ctx.child("used");
            used.spawn(c -> null).await();
            AtomicBoolean closedByRefusal = new AtomicBoolean();
            assertThrows(IllegalStateException.class, () -> used.spawn(() -> closedByRefusal.set(true), c -> null));
            assertThrows(IllegalArgumentException.class, () -> ctx.child("badWorker").spawnOn(ctx.workers(),
                    () -> closedByRefusal.set(true), c -> null));
            assertFalse(closedByRefusal.get(), "a refused spawn takes nothing");
            assertThrows(NullPointerException.class, () -> ctx.child("nullResource").spawn(null, c -> null));
            return null;
        });
    }
}
