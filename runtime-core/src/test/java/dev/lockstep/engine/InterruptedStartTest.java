package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.AbortedException;
import dev.lockstep.ClosedException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Interrupting the thread in {@code Runner.start} ends it: the run fails with {@link AbortedException}, every
 * task is aborted and runs its {@code finally}, and {@code start} returns control with the interrupt status set
 * — within a bounded grace period even when a fiber is stuck where no abort reaches. A test timeout, a shutdown
 * hook or {@code Future.cancel(true)} relies on this; before, {@code start} ignored interrupts and a wedged
 * run held its caller forever.
 */
class InterruptedStartTest {

    /** Runs {@code start} on a thread of its own and records what it ended with and its interrupt status. */
    private static final class Starter {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicBoolean interruptStatus = new AtomicBoolean();
        final Thread thread;

        Starter(ThreadedRunner runner, dev.lockstep.Task<?> root) {
            thread = Thread.ofPlatform().name("starter").start(() -> {
                try {
                    runner.start(root);
                } catch (Throwable t) {
                    failure.set(t);
                }
                interruptStatus.set(Thread.currentThread().isInterrupted());
            });
        }

        void joinWithin(Duration limit) throws InterruptedException {
            assertTrue(thread.join(limit), "start did not end within " + limit + " of the interrupt");
        }
    }

    @Test
    void anInterruptAbortsEveryTaskAndStartThrowsAborted() throws Exception {
        ThreadedRunner runner = new ThreadedRunner(new ScriptedKernel(), 2, 8, null, "interrupted");
        CountDownLatch sleeping = new CountDownLatch(2);
        AtomicReference<Throwable> childSaw = new AtomicReference<>();
        AtomicBoolean rootFinally = new AtomicBoolean();
        Starter starter = new Starter(runner, ctx -> {
            var child = ctx.child("sleeper").spawnOn(1, c -> {
                sleeping.countDown();
                try {
                    c.sleep(Duration.ofDays(1));
                } catch (Throwable t) {
                    childSaw.set(t);
                    throw t;
                }
                return null;
            });
            try {
                sleeping.countDown();
                ctx.sleep(Duration.ofDays(1));
                return child.await();
            } finally {
                rootFinally.set(true);
            }
        });
        assertTrue(sleeping.await(10, TimeUnit.SECONDS));
        starter.thread.interrupt();
        starter.joinWithin(Duration.ofSeconds(20));

        AbortedException failure = assertInstanceOf(AbortedException.class, starter.failure.get());
        assertEquals("Runner.start was interrupted: every task was aborted", failure.getMessage());
        assertTrue(starter.interruptStatus.get(), "start ends with the interrupt status set");
        assertTrue(rootFinally.get(), "the root ran its finally");
        assertInstanceOf(ClosedException.class, childSaw.get(), "the child's sleep was aborted");
    }

    @Test
    void aFiberNoAbortReachesIsLeftBehindAndNamedAfterTheGracePeriod() throws Exception {
        ThreadedRunner runner = new ThreadedRunner(new ScriptedKernel(), 1, 8, null, "wedged");
        runner.interruptGrace(Duration.ofMillis(300));
        AtomicBoolean release = new AtomicBoolean();
        CountDownLatch spinning = new CountDownLatch(1);
        Starter starter = new Starter(runner, ctx -> {
            spinning.countDown();
            while (!release.get()) {
                Thread.onSpinWait(); // never returns to the runtime, so no abort can reach it
            }
            return null;
        });
        try {
            assertTrue(spinning.await(10, TimeUnit.SECONDS));
            starter.thread.interrupt();
            starter.joinWithin(Duration.ofSeconds(20));

            AbortedException failure = assertInstanceOf(AbortedException.class, starter.failure.get());
            assertTrue(failure.getMessage().startsWith("Runner.start was interrupted and 1 worker did not retire"
                    + " within PT0.3S; left running, their resources not closed: wedged-worker-0"),
                    failure.getMessage());
            assertInstanceOf(AbortedException.class, failure.getCause(), "the interrupt is the run's failure");
            assertEquals(1, failure.getSuppressed().length, "the stuck worker's stack is attached");
            assertTrue(starter.interruptStatus.get());
        } finally {
            release.set(true);
        }
        // Released, the fiber ends and its worker retires on its own: nothing stays behind.
        BoundedWait.parking("the released worker retired", () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("wedged-worker-0")));
        assertFalse(starter.thread.isAlive());
    }
}
