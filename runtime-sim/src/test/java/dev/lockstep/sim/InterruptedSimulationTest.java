package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Interrupting the thread that runs a simulation ends it, as on runtime-uring: every task is aborted (its
 * {@code finally} runs), the run fails naming the interrupt, and the interrupt status is set again for the
 * caller. A test's timeout relies on this to stop a simulation that would otherwise run for a simulated year.
 */
class InterruptedSimulationTest {

    @Test
    void anInterruptAbortsEveryTaskAndFailsTheRun() throws Exception {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(1).workers(2)
                .timeLimit(Duration.ofDays(365)).build());
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean rootFinally = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean interruptStatus = new AtomicBoolean();
        Thread caller = Thread.ofPlatform().name("simulation-caller").start(() -> {
            try {
                runner.start(ctx -> {
                    try {
                        while (true) {
                            ctx.sleep(Duration.ofMillis(1));
                            running.countDown();
                        }
                    } finally {
                        rootFinally.set(true);
                    }
                });
            } catch (Throwable t) {
                failure.set(t);
            }
            interruptStatus.set(Thread.currentThread().isInterrupted());
        });
        assertTrue(running.await(20, TimeUnit.SECONDS), "the simulation runs");
        caller.interrupt();
        assertTrue(caller.join(Duration.ofSeconds(20)), "the simulation ended after the interrupt");

        SimulationFailure simulationFailure = assertInstanceOf(SimulationFailure.class, failure.get());
        assertTrue(simulationFailure.getMessage().contains("interrupted: the thread running the simulation was"
                + " interrupted, so every task was aborted"), simulationFailure.getMessage());
        assertTrue(rootFinally.get(), "the root ran its finally");
        assertTrue(interruptStatus.get(), "the caller sees its interrupt status again");
    }
}
