package dev.lockstep.testing;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The seeds of one {@link SimulationTest} method run ahead of JUnit on {@code threads} threads of their own, each
 * run on an instance of the test class of its own; JUnit's invocation of a seed waits for that seed's result and
 * passes or fails with it.
 *
 * <h2>Why ahead of JUnit, not in JUnit's own concurrent execution</h2>
 * JUnit runs a test template's invocations one after another unless its parallel execution is switched on for the
 * whole run ({@code junit.jupiter.execution.parallel.enabled}, a configuration parameter only the user sets) and the
 * test is concurrent; a library cannot turn that on for one method, and turning it on changes how every other test
 * of the run executes. So the extension keeps JUnit's order and reporting (one invocation per seed, in seed order,
 * each passing or failing with its seed's {@link SimulationTestFailure}) and moves only the simulations: when JUnit
 * reaches seed {@code i}, the runs of seeds {@code i} to {@code i + 4 * threads} are handed to the threads (those
 * not handed over already), so the threads stay busy while JUnit reports, and a long seed does not leave them idle
 * behind it. At most {@code threads} simulations are alive at once and at most {@code 4 * threads} later seeds'
 * results wait for JUnit (a digest or a failure each), so memory stays bounded however many seeds there are.
 *
 * <h2>What is shared</h2>
 * Each run gets its own simulator (a seed's run depends on its seed alone, so its verdict and digest are those of
 * the same seed run alone) and its own instance of the test class made as JUnit makes one ({@link FreshInstance}:
 * constructor, {@code @BeforeEach}, the method, {@code @AfterEach}, all on the run's thread). JUnit's own instance for
 * the invocation, made when JUnit reaches it, is left unused; the extension skips its {@code @BeforeEach} and
 * {@code @AfterEach} methods, so they run once per seed, on the instance the seed runs on. Classes for which that is
 * not the same as JUnit's one-at-a-time sweep are told apart before any run ({@link FreshInstance#sharedBetweenRuns}).
 * What each lifetime was told (the nemesis its strategy chose, or why it may not ask for one) travels with its own
 * runner ({@link RunSettings}), so no run can read another's.
 *
 * <h2>What crosses threads</h2>
 * The threads take the runs from the pool's queue in the order they were handed over (seed order), so when JUnit
 * waits for seed {@code i}, every earlier seed has been reported and seed {@code i} is running or next: the wait
 * is never longer than the seed's own run. A run's result (its digest, or what it threw) is published to JUnit's
 * thread through its {@link FutureTask}: everything the run did happens-before {@code get} returns, so the
 * invocation sees the whole result and nothing is lost. The bookkeeping of which seeds were handed over is guarded
 * by this object's monitor, taken only by JUnit's threads. If the wait is interrupted (JUnit's timeout), the run is
 * cancelled with an interrupt, which aborts a simulation ({@code SimRunner.start} answers interrupts), as the
 * timeout would have aborted the run on JUnit's thread.
 *
 * <h2>JUnit skipping invocations</h2>
 * When JUnit runs only some invocations (an IDE's rerun of one seed, a selection by unique id), it still asks for
 * all of them and skips the others silently. The sweep notices the first skipped or reordered seed and from then
 * on runs only the seeds JUnit asks for; the runs already handed ahead (at most {@code 4 * threads}) are cancelled
 * when the sweep closes.
 *
 * <h2>The runtime-uring run</h2>
 * It runs on JUnit's thread with JUnit's instance, as before, and never alongside a simulation of the sweep: it takes
 * the write half of {@code alone}, whose read half every simulated run holds. It uses real time and real threads, so
 * simulations beside it would only take its CPU and make its timing less like a real deployment's.
 *
 * <h2>Closing</h2>
 * JUnit closes the sweep when the test method's invocations are done (it is kept in the method's store): queued
 * runs are dropped, running ones interrupted, and {@link #close} returns once every thread of the pool has ended.
 */
final class Sweep implements AutoCloseable {
    /** Runs handed out per thread beyond the one JUnit is waiting for. */
    static final int AHEAD_PER_THREAD = 4;
    /** How long {@link #close} waits for interrupted runs to end. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);

    private final SimulationTest test;
    private final SweepSettings settings;
    /** Where each run's {@code sometimes} labels go (thread-safe). */
    private final SimulationExtension.MethodRuns runs;
    private final Method method;
    private final Class<?> testClass;
    private final int threads;
    private final ThreadPoolExecutor pool;
    private final ReentrantReadWriteLock alone = new ReentrantReadWriteLock(true);
    /** Every thread the pool started: joined by {@link #close}. Guarded by itself. */
    private final List<Thread> started = new ArrayList<>();

    // Guarded by this: which seeds were handed over (by index), their pending runs until JUnit claims them, the
    // index JUnit is expected to claim next, and whether runs are still handed ahead.
    private final java.util.BitSet handedOver = new java.util.BitSet();
    private final java.util.Map<Integer, Pending> pending = new java.util.HashMap<>();
    private int nextClaim;
    private boolean ahead = true;

    /** A seed's runs: one, or two with {@code checkDeterminism}. */
    private record Pending(long seed, Simulations.Plan plan, FutureTask<Outcome> first, FutureTask<Outcome> second) {
    }

    /** A run's result: the audit digest, or what failed. */
    private record Outcome(String digest, Throwable failure) {
    }

    Sweep(SimulationTest test, SimulationExtension.MethodRuns runs, Method method, Class<?> testClass, int threads) {
        this.test = test;
        this.settings = runs.settings;
        this.runs = runs;
        this.method = method;
        this.testClass = testClass;
        this.threads = threads;
        String name = "lockstep-sweep-" + method.getName() + "-";
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread;
            synchronized (started) {
                // Daemon: a run that ignores its interrupt cannot keep the JVM alive after the tests.
                thread = Thread.ofPlatform().daemon().name(name + started.size()).unstarted(task);
                thread.setContextClassLoader(loader); // what JUnit's thread loads the test's classes with
                started.add(thread);
            }
            return thread;
        });
    }

    /**
     * Waits for the seed at {@code index} (its position in the sweep) and returns if its run passed, else throws
     * what the sequential sweep would have thrown for it.
     */
    void await(int index, long seed) throws Throwable {
        Pending mine = claim(index, seed);
        Outcome first;
        Outcome second;
        try {
            // Published by the run's thread through the FutureTask: its Outcome, and everything the run did before
            // (the test instance, @AfterEach included), happen-before get returns here, on JUnit's thread.
            first = mine.first.get();
            second = mine.second == null ? null : mine.second.get();
        } catch (InterruptedException interrupted) {
            // JUnit's timeout: abort the runs, as an interrupt of a run on JUnit's thread would have.
            mine.first.cancel(true);
            if (mine.second != null) {
                mine.second.cancel(true);
            }
            throw interrupted;
        } catch (ExecutionException impossible) {
            throw impossible.getCause(); // a run catches everything it throws into its Outcome
        }
        // The order of the sequential sweep: the first run's failure, then the rerun's, then a difference.
        if (first.failure != null) {
            throw first.failure;
        }
        if (second != null) {
            if (second.failure != null) {
                throw second.failure;
            }
            if (!first.digest.equals(second.digest)) {
                throw SimulationExtension.differs(seed, mine.plan, first.digest, second.digest);
            }
        }
    }

    private synchronized Pending claim(int index, long seed) {
        if (index != nextClaim) {
            ahead = false; // JUnit skipped or reordered an invocation: hand out only what it asks for
        }
        nextClaim = index + 1;
        handOver(index, seed);
        if (ahead) {
            int end = (int) Math.min(settings.runs(), (long) index + 1 + (long) AHEAD_PER_THREAD * threads);
            for (int later = index + 1; later < end; later++) {
                handOver(later, settings.seedAt(later));
            }
        }
        return pending.remove(index);
    }

    private void handOver(int index, long seed) {
        if (handedOver.get(index)) {
            return;
        }
        handedOver.set(index);
        Simulations.Plan plan = SimulationExtension.plan(test, seed, settings.strategy());
        FutureTask<Outcome> first = new FutureTask<>(() -> run(seed, plan));
        FutureTask<Outcome> second = test.checkDeterminism() ? new FutureTask<>(() -> run(seed, plan)) : null;
        pending.put(index, new Pending(seed, plan, first, second));
        // Handed to a pool thread through the pool's queue, which publishes the task (its seed and plan) to it.
        // The run reads nothing else of this object but the test's method and class, final since construction.
        pool.execute(first);
        if (second != null) {
            pool.execute(second); // the two runs of a seed may run side by side: each has its own everything
        }
    }

    /** One run of a seed on a pool thread, on an instance of its own; never throws. */
    private Outcome run(long seed, Simulations.Plan plan) {
        try {
            alone.readLock().lockInterruptibly();
        } catch (InterruptedException cancelled) {
            return new Outcome(null, cancelled);
        }
        try {
            Object instance;
            try {
                instance = FreshInstance.construct(testClass);
            } catch (java.lang.reflect.InvocationTargetException thrown) {
                return new Outcome(null, thrown.getCause());
            }
            String digest = null;
            Throwable failure = null;
            try {
                FreshInstance.setUp(instance);
                RunRecord record = new RunRecord();
                try {
                    digest = Simulations.execute(seed, plan,
                            ctx -> SimulationExtension.invoke(method, instance, ctx, plan, seed), true, record::add)
                            .digest();
                } finally {
                    // Before the run's FutureTask completes: JUnit's thread, which reads the labels once it has
                    // awaited every seed's run, sees them (get() happens-after the task's run).
                    runs.recordSometimes(record);
                }
            } catch (Throwable thrown) {
                failure = thrown;
            }
            try {
                FreshInstance.tearDown(instance); // as JUnit: @AfterEach runs even after a failed @BeforeEach
            } catch (Throwable thrown) {
                if (failure == null) {
                    failure = thrown;
                } else {
                    failure.addSuppressed(thrown);
                }
            }
            return new Outcome(digest, failure);
        } catch (Throwable unexpected) {
            return new Outcome(null, unexpected);
        } finally {
            alone.readLock().unlock();
        }
    }

    /** Runs {@code run} on the calling thread with no simulation of this sweep running. */
    void alone(SimulationExtension.ThrowingRunnable run) throws Throwable {
        alone.writeLock().lockInterruptibly();
        try {
            run.run();
        } finally {
            alone.writeLock().unlock();
        }
    }

    /**
     * Stops the pool: when JUnit closes the method's store, every invocation JUnit ran has had its result, so what
     * is left was handed ahead of an invocation JUnit skipped, or its wait timed out. Queued runs are dropped and
     * running ones interrupted; returns once every pool thread has ended.
     *
     * @throws IllegalStateException naming the threads still running after the wait (a run that ignores interrupts)
     */
    @Override
    public void close() throws InterruptedException {
        pool.shutdownNow();
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        pool.awaitTermination(STOP_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        List<Thread> threadsStarted;
        synchronized (started) {
            threadsStarted = List.copyOf(started);
        }
        List<String> stuck = new ArrayList<>();
        for (Thread thread : threadsStarted) {
            // A worker counts as ended for the pool a moment before its thread does: join, so none is left.
            if (!thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                stuck.add(thread.getName());
            }
        }
        if (!stuck.isEmpty()) {
            throw new IllegalStateException("@SimulationTest " + method.getName() + ": runs did not end within "
                    + STOP_WAIT.toSeconds() + " s of an interrupt; their threads are left running: " + stuck);
        }
    }
}
