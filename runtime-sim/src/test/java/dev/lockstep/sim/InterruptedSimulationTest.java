package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Interrupting the thread in {@code SimRunner.start} ends the run, as on runtime-uring: every task is aborted (its
 * {@code finally} runs), {@code start} throws {@link AbortedException} saying it was interrupted, and the caller's
 * interrupt status is set again. A test's timeout relies on this to stop a simulation that would otherwise run for
 * a simulated year. The interrupt lands at a random moment of the run, many times over: whenever it comes (while
 * a fiber runs, between steps, while the clock jumps), it is not lost.
 */
class InterruptedSimulationTest {

    @Test
    void anInterruptAbortsEveryTaskAndStartThrowsAborted() throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            SimRunner runner = SimRunner.of(SimConfig.builder().seed(attempt).workers(2)
                    .timeLimit(Duration.ofDays(365)).build());
            CountDownLatch running = new CountDownLatch(2);
            AtomicBoolean rootFinally = new AtomicBoolean();
            AtomicReference<Throwable> childSaw = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean interruptStatus = new AtomicBoolean();
            Thread caller = Thread.ofPlatform().name("simulation-caller").start(() -> {
                try {
                    runner.start(ctx -> {
                        var child = ctx.child("sleeper").spawnOn(1, c -> {
                            try {
                                running.countDown();
                                c.sleep(Duration.ofDays(300));
                            } catch (Throwable t) {
                                childSaw.set(t);
                                throw t;
                            }
                            return null;
                        });
                        boolean counted = false;
                        try {
                            while (true) {
                                ctx.sleep(Duration.ofNanos(1_000));
                                if (!counted) {
                                    counted = true;
                                    running.countDown();
                                }
                            }
                        } finally {
                            rootFinally.set(true);
                            child.await();
                        }
                    });
                } catch (Throwable t) {
                    failure.set(t);
                }
                interruptStatus.set(Thread.currentThread().isInterrupted());
            });
            assertTrue(running.await(20, TimeUnit.SECONDS), "the simulation runs");
            Thread.sleep(attempt % 4); // a different moment of the run each time
            caller.interrupt();
            assertTrue(caller.join(Duration.ofSeconds(20)), "the simulation ended after the interrupt");

            AbortedException aborted = assertInstanceOf(AbortedException.class, failure.get());
            assertEquals("Runner.start was interrupted: every task was aborted", aborted.getMessage());
            assertTrue(rootFinally.get(), "the root ran its finally");
            assertInstanceOf(ClosedException.class, childSaw.get(), "the child's sleep was aborted");
            assertTrue(interruptStatus.get(), "the caller sees its interrupt status again");
        }
    }
}
