package dev.lockstep;

import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;

/**
 * How this project's model checks run a scenario under Lincheck: the task primitives' ({@code
 * dev.lockstep.sync.ModelCheckingTest}) and, through this module's test jar, the engine's (runtime-core's {@code
 * ModelCheckingTest} and its neighbours) and the simulator's ({@code ForeignHandoffModelTest}). One harness for all,
 * held to {@link ModelChecksCalibrationTest}: it must find races planted on purpose. Test code only.
 */
public final class ModelChecks {
    private ModelChecks() {
    }

    /**
     * Lincheck's model check of {@code scenario}. One verdict is given a second look: "Concurrent test has hung"
     * is Lincheck's timer (30 s for one interleaving), and the first interleaving of a scenario also pays for
     * instrumenting every class it meets; on a loaded 2-core machine that alone ran out the timer (1 run in 3 of
     * the worker scenario). A scenario that really hangs hangs again on the second check, which pays no
     * instrumentation, so it still fails; every other failure fails at once.
     *
     * @param invocations interleavings to explore
     * @param scenario one run: it starts its threads ({@link #run}) and asserts afterwards
     */
    public static void check(int invocations, Runnable scenario) {
        try {
            Lincheck.runConcurrentTest(invocations, scenario);
        } catch (LincheckAssertionError failure) {
            if (failure.getMessage() == null || !failure.getMessage().contains("Concurrent test has hung")) {
                throw failure;
            }
            Lincheck.runConcurrentTest(invocations, scenario);
        }
    }

    /**
     * Runs each body on a thread of its own and waits for them all: a scenario's concurrent part.
     *
     * <p>Each thread is a {@link Thread} subclass whose {@code run()} calls the body itself. A thread made with
     * {@code new Thread(body)} runs its body through {@code Thread.run()}, which on JDK 25 enters the body through
     * the scoped-value bindings ({@code Thread.runWith}); Lincheck 3.7 analyses nothing inside that call, so the
     * body ran with no switch point in it and a scenario explored one interleaving however many it was given (a
     * lost update of two increments went unfound in 200 invocations; {@code ModelChecksCalibrationTest} keeps
     * that from coming back unseen).
     *
     * @param bodies what each thread does
     */
    public static void run(Runnable... bodies) {
        Thread[] started = new Thread[bodies.length];
        for (int i = 0; i < bodies.length; i++) {
            started[i] = new ScenarioThread(bodies[i]);
            started[i].start();
        }
        for (Thread thread : started) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** A scenario's thread: its own {@code run()} calls the body, so Lincheck sees the body (see {@link #run}). */
    private static final class ScenarioThread extends Thread {
        private final Runnable body;

        ScenarioThread(Runnable body) {
            this.body = body;
        }

        @Override
        public void run() {
            body.run();
        }
    }
}
