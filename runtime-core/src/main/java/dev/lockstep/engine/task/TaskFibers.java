package dev.lockstep.engine.task;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.EngineContext;
import dev.lockstep.engine.worker.Worker;

/**
 * How a task of an {@link Engine} runs as a fiber: counted on its home worker first (or refused, its handle
 * resolved as not started, when its supervisor was aborted or the worker is closing), its body run with what it
 * was handed closed after it, its end taken in by the {@link Supervision} tree before its handle resolves, and
 * the counts that keep its worker's thread alive dropped last. Any thread may start a task.
 */
public final class TaskFibers {
    private final Engine engine;
    private final FiberScheduler scheduler;
    private final Supervision supervision;
    private final LiveFibers fibers;
    /** The names of the fibers' virtual threads. */
    private final FiberNames names;

    public TaskFibers(Engine engine, FiberScheduler scheduler, Supervision supervision, LiveFibers fibers) {
        this.engine = engine;
        this.scheduler = scheduler;
        this.supervision = supervision;
        this.fibers = fibers;
        this.names = new FiberNames(engine.workerCount());
    }

    /**
     * Starts {@code task} as a fiber whose home is {@code home}, under {@code node}; or, if the node is aborted or
     * the worker closing, resolves its handle as not started (closing {@code owned}). Any thread.
     *
     * @param spawner the spawning task's node, or null for the root
     * @param label the task's label, empty for the root
     * @param owned closed when the task ends, its body having run or not; or null
     * @return the task's handle
     */
    public <T> Handle<T> start(Worker home, Supervision.Node node, Supervision.Node spawner, String label, Task<T> task,
                        AutoCloseable owned) {
        TaskHandle<T> handle = new TaskHandle<>(engine, node, label.isEmpty() ? "root" : label);
        node.setTask(handle);
        if (node.isAborted() || home == null || home.isClosing()) {
            handle.closed("was not started: its supervisor was aborted or its worker closed", closeUnrun(owned));
            return handle;
        }
        if (!home.countFiber()) {
            // The worker began closing since the look above (its thread may be ending): see Worker.countFiber.
            handle.closed("was not started: its worker closed", closeUnrun(owned));
            return handle;
        }
        Fiber fiber = new Fiber(home, handle.label, scheduler);
        handle.fiber = fiber;
        EngineContext context = new EngineContext(engine, node, label, spawner == null);
        fibers.counting();
        Thread.Builder.OfVirtual builder = Fibers.builder(continuation -> scheduler.schedule(home, fiber,
                fiber.guarded(continuation)));
        Thread thread = Fibers.unstarted(builder, names.of(home.index(), handle.label), () -> {
            Fibers.bind(fiber);
            Worker.enter(home);
            // The outcome is published only after the supervision tree has taken in the task's end, so a fiber
            // that awaits this handle (on any worker) sees every node below the spawner already aborted.
            Runnable resolve;
            try {
                if (fiber.isAborted() || node.isAborted()) {
                    Throwable closeFailure = closeUnrun(owned);
                    resolve = () -> handle.closed("was aborted before it ran", closeFailure);
                } else {
                    T value = owned == null ? task.run(context) : runOwning(task, context, owned);
                    if (fiber.isAborted()) {
                        resolve = () -> handle.closed("was aborted");
                    } else {
                        resolve = () -> handle.succeed(value);
                    }
                }
            } catch (Throwable thrown) {
                if (fiber.isAborted()) {
                    Throwable closeFailure = owned == null ? null : closeFailure(thrown);
                    resolve = () -> handle.closed("was aborted", closeFailure);
                } else {
                    RuntimeException reported = handle.reported(thrown);
                    resolve = () -> handle.fail(reported);
                }
            }
            try {
                if (spawner != null) {
                    supervision.spawnedTaskFinished(spawner);
                }
                supervision.abortBelow(node, false);
            } finally {
                try {
                    resolve.run();
                } catch (Throwable wakerFailure) {
                    // A poller's waker threw while the outcome woke it: the runner fails with it (Waker's
                    // contract), and the counts below still drop, so the worker is not kept alive by this fiber.
                    engine.fail(wakerFailure);
                } finally {
                    fibers.remove(fiber);
                    // Before the counts drop: the fiber may still unmount here (a contended monitor inside a
                    // nudge), and its worker must keep running fibers until the last one has really finished.
                    scheduler.fiberEnding(home);
                    fibers.uncount();
                    home.fiberFinished();
                }
            }
        });
        fiber.attach(thread);
        fibers.add(fiber);
        thread.start();
        return handle;
    }

    /** Closes what a task that never ran was handed; the close's failure, or null. */
    private static Throwable closeUnrun(AutoCloseable owned) {
        if (owned == null) {
            return null;
        }
        try {
            owned.close();
            return null;
        } catch (Exception failure) {
            return failure;
        }
    }

    /**
     * What an aborted task's close of its owned resource threw, to attach to its outcome as Spawner promises:
     * {@code thrown} itself when the close failed after the body returned, else what try-with-resources attached
     * to the body's exception (the abort's own ClosedException is not a close failure). Null when the close did
     * not fail.
     */
    private static Throwable closeFailure(Throwable thrown) {
        if (!(thrown instanceof ClosedException)) {
            return thrown;
        }
        Throwable[] suppressed = thrown.getSuppressed();
        return suppressed.length == 0 ? null : suppressed[0];
    }

    /** Runs the body of a task handed {@code owned}, closing it after, as try-with-resources does. */
    private static <T> T runOwning(Task<T> task, Context context, AutoCloseable owned) throws Exception {
        try (owned) {
            return task.run(context);
        }
    }
}
