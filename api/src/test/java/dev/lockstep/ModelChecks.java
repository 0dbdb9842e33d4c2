package dev.lockstep;

import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.LincheckSettings;

/**
 * How this project's model checks run a scenario under Lincheck: the task primitives' ({@code
 * dev.lockstep.sync.ModelCheckingTest}) and, through this module's test jar, the engine's (runtime-core's {@code
 * ModelCheckingTest} and its neighbours) and the simulator's ({@code ForeignHandoffModelTest}). One harness for all,
 * held to {@link ModelChecksCalibrationTest}: it must find races planted on purpose. Test code only.
 */
public final class ModelChecks {
    /**
     * How many times a scenario Lincheck declared hung is explored before the verdict stands: a real hang hangs on
     * every look, while a timer that a loaded machine ran out may run out on the next look too.
     */
    private static final int HUNG_LOOKS = 3;

    private ModelChecks() {
    }

    /**
     * Lincheck's model check of {@code scenario}, which must explore every one of the {@code invocations}
     * interleavings asked for: an exploration that ends early fails (see {@link #SETTINGS} for why it can). One
     * verdict is looked at again: "Concurrent test has hung" is Lincheck's wall-clock timer of 30 s per
     * interleaving, so a loaded machine can run it out (the first interleaving also pays for instrumenting every
     * class it meets). A scenario that really hangs hangs on every one of the {@link #HUNG_LOOKS} looks, so it
     * still fails; every other failure fails at once.
     *
     * @param invocations interleavings to explore; no more than the scenario has (a scenario with fewer than that
     *     fails here: ask for what it has)
     * @param scenario one run: it starts its threads ({@link #run}) and asserts afterwards
     * @throws AssertionError if the interleavings explored were fewer than asked
     */
    public static void check(int invocations, Runnable scenario) {
        for (int look = 1; ; look++) {
            try {
                explore(invocations, scenario);
                return;
            } catch (LincheckAssertionError failure) {
                boolean hung = failure.getMessage() != null
                        && failure.getMessage().contains("Concurrent test has hung");
                if (!hung || look == HUNG_LOOKS) {
                    throw failure;
                }
            }
        }
    }

    /**
     * Lincheck's loop bounds, raised from its defaults (a thread switch forced after 10 visits of a loop's head, a
     * hang declared after 50). A loop of 9 to 49 iterations in a scenario's own thread before it starts the others
     * (building a {@code Worker}: its buffer classes are 9) made Lincheck 3.7 stop after 3 interleavings with no
     * error, and one of 50 or more reported a hang that was not there. What the bounds are for, a thread spinning
     * on another's progress (a lock taken without unmounting spins), still gets its switch, after 1,000 iterations
     * instead of 10: slower, not weaker, and a real livelock is still declared, later. Set through Lincheck's
     * internal entry point, the public one having no settings; {@code ModelChecksCalibrationTest} fails if a later
     * Lincheck ignores them.
     */
    private static final LincheckSettings SETTINGS = new LincheckSettings(true, 1_000, 10_000, 20);

    private static void explore(int invocations, Runnable scenario) {
        // Counted in an atomic: Lincheck restores the plain fields a scenario reaches between runs, not these.
        AtomicInteger runs = new AtomicInteger();
        Lincheck.runConcurrentTestInternal$lincheck(invocations, SETTINGS, () -> {
            runs.incrementAndGet();
            scenario.run();
        });
        if (runs.get() < invocations) {
            throw new AssertionError("Lincheck explored " + runs.get() + " of the " + invocations
                    + " interleavings asked for, and reported nothing: a scenario with that few interleavings should"
                    + " ask for that many; otherwise Lincheck gave up (see ModelChecks.SETTINGS)");
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
