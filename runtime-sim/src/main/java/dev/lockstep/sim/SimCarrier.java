package dev.lockstep.sim;

import java.time.Duration;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.Supplier;

/**
 * The thread a simulation runs on: its loop, and every fiber it carries. {@link SimRunner} starts one per run and
 * waits for it on the caller's thread, which buys two things the caller's own thread could not give.
 *
 * <h2>Work handed to the common pool stays here</h2>
 * The carrier is a {@link ForkJoinWorkerThread} of {@link ForkJoinPool#commonPool()} that never joins the pool's
 * work: it is not registered with the pool, so no pool worker ever scans its queue. The JDK decides by the
 * <em>carrier</em> of a virtual thread whether a submission to a pool is internal, so a fiber's
 * {@code CompletableFuture.supplyAsync(...)}, {@code runAsync(...)}, {@code commonPool().submit(...)} or
 * {@code execute(...)} is pushed onto this thread's own queue, synchronously, within the fiber's step — where no
 * pool thread can take it, however fast the pool is. After each step the simulator looks at the queue
 * ({@link #pooledTask}): anything there is a determinism leak, named the same way on every run of the seed. (Work
 * the fiber forks from inside such a task, or hands to another pool, is not covered by this; another pool's
 * threads are caught when the fiber creates them, see {@link LeakWatch}.)
 *
 * <h2>Interrupts reach the run</h2>
 * The JDK clears a carrier's interrupt status each time it mounts a virtual thread, so an interrupt of the
 * thread that carries the fibers can be lost. The caller's thread carries none: it waits for the carrier, and an
 * interrupt of it (a test's timeout, a caller's deadline) is handed to the simulation as a flag the loop reads
 * before every step ({@link Simulation#interrupt()}); the run then aborts every task and {@code start} throws
 * {@code AbortedException}, the caller's interrupt status set again. A run stuck where the loop never gets back
 * (a fiber spinning) is left behind after {@link #INTERRUPT_GRACE}, named.
 */
final class SimCarrier extends ForkJoinWorkerThread {

    /** How long the caller waits, after an interrupt, for a simulation whose loop does not get back. */
    static final Duration INTERRUPT_GRACE = Duration.ofSeconds(10);

    private final Supplier<?> body;
    private Object result;
    private Throwable failure;

    private SimCarrier(String name, Supplier<?> body) {
        super(null, ForkJoinPool.commonPool(), true);
        this.body = body;
        setName(name);
        setDaemon(true);
    }

    @Override
    public void run() {
        try {
            result = body.get();
        } catch (Throwable thrown) {
            failure = thrown;
        }
    }

    /**
     * What a fiber handed to the common pool during the step that just ran, or null if nothing: the first such task
     * is taken off this thread's queue and named. On the carrier only (the queue is its own; nobody else takes from
     * it, so the answer is the same on every run of the seed).
     */
    String pooledWork() {
        if (getQueuedTaskCount() == 0) {
            return null;
        }
        java.util.concurrent.ForkJoinTask<?> task = PoolAccess.takeOwn();
        String type = task == null ? "" : task.getClass().getName();
        return switch (type) {
            case "java.util.concurrent.CompletableFuture$AsyncSupply" ->
                    "CompletableFuture.supplyAsync without an executor";
            case "java.util.concurrent.CompletableFuture$AsyncRun" -> "CompletableFuture.runAsync without an executor";
            default -> type.startsWith("java.util.concurrent.CompletableFuture")
                    ? "an asynchronous CompletableFuture stage without an executor"
                    : "a task for ForkJoinPool.commonPool() (submit, execute or invoke)";
        };
    }

    /** Whether the calling thread is a simulation's carrier, or a fiber it carries. */
    static SimCarrier current() {
        return Thread.currentThread() instanceof SimCarrier carrier ? carrier : null;
    }

    /**
     * Runs {@code body} on a carrier of its own and returns what it returned, or throws what it threw. An interrupt
     * of the calling thread is passed to {@code simulation}; the interrupt status is set again before this returns
     * or throws.
     */
    @SuppressWarnings("unchecked")
    static <T> T run(Simulation simulation, String name, Supplier<T> body) {
        SimCarrier carrier = new SimCarrier(name, body);
        carrier.start();
        boolean interrupted = false;
        long giveUpAt = 0;
        while (true) {
            try {
                if (!interrupted) {
                    carrier.join();
                    break;
                }
                long left = giveUpAt - System.nanoTime();
                if (left <= 0 || carrier.join(Duration.ofNanos(left))) {
                    break;
                }
            } catch (InterruptedException interrupt) {
                if (!interrupted) {
                    interrupted = true;
                    giveUpAt = System.nanoTime() + INTERRUPT_GRACE.toNanos();
                    simulation.interrupt();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            if (carrier.isAlive()) {
                throw new dev.lockstep.AbortedException("Runner.start was interrupted: every task was aborted, but"
                        + " the simulation did not stop within " + INTERRUPT_GRACE.toSeconds() + " s; its thread '"
                        + name + "' was left running" + simulation.stuckAt());
            }
        }
        if (carrier.failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (carrier.failure instanceof Error error) {
            throw error;
        }
        if (carrier.failure != null) {
            throw new IllegalStateException(carrier.failure);
        }
        return (T) carrier.result;
    }

    /** Reaches {@link java.util.concurrent.ForkJoinTask#pollTask()}, which only a subclass may call. */
    private abstract static class PoolAccess extends java.util.concurrent.ForkJoinTask<Void> {
        private static final long serialVersionUID = 1L;

        /** Called only when this carrier's own queue holds a task: then that is the one taken, not a stolen one. */
        static java.util.concurrent.ForkJoinTask<?> takeOwn() {
            return pollTask();
        }
    }
}
