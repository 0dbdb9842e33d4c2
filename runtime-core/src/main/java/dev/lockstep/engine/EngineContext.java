package dev.lockstep.engine;

import dev.lockstep.BufferPool;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.OpenOptions;
import dev.lockstep.Operation;
import dev.lockstep.Signal;
import dev.lockstep.Task;
import dev.lockstep.TimeoutException;
import dev.lockstep.engine.io.EngineNetwork;
import dev.lockstep.engine.request.TimerRequest;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.task.StopState;
import dev.lockstep.engine.task.Supervision;
import dev.lockstep.engine.worker.Worker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The {@link Context} of both runtimes: a node of the supervision tree plus the engine's clock, storage and
 * network, all registering on the calling fiber's worker.
 */
public final class EngineContext implements Context {

    private final Engine engine;
    private final Supervision.Node node;
    private final String label;
    /** Set by the one spawn this context makes; changed only through {@link #CONSUMED} (one object less per task). */
    private volatile boolean consumed;
    private static final java.lang.invoke.VarHandle CONSUMED;

    static {
        try {
            CONSUMED = java.lang.invoke.MethodHandles.lookup().findVarHandle(EngineContext.class, "consumed",
                    boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /**
     * Whether this is the root task's context or a {@link #child} of it (with no task between): a spawn from it
     * makes a root-level task, which {@link #spawn} spreads over the workers.
     */
    private final boolean rootLevel;

    public EngineContext(Engine engine, Supervision.Node node, String label, boolean rootLevel) {
        this.engine = engine;
        this.node = node;
        this.label = label;
        this.rootLevel = rootLevel;
    }

    // ---- Spawner ----

    /**
     * {@inheritDoc}
     *
     * <p>Placement (the default of both runtimes): a root-level task — spawned by the root task, from its
     * context or a {@code child} of it — goes to the next worker in round-robin order ({@link Engine#placeRootLevel});
     * any other task goes to the current worker. A spawn from outside any task goes to worker 0.
     */
    @Override
    public <T> Handle<T> spawn(Task<T> task) {
        if (rootLevel && !consumed) {
            return spawnOn(engine.placeRootLevel(), task);
        }
        Worker here = Worker.current();
        return spawnOn(here == null || here.engine() != engine ? 0 : here.index(), task);
    }

    @Override
    public <T> Handle<T> spawnOn(int worker, Task<T> task) {
        java.util.Objects.requireNonNull(task, "task");
        return spawnOwning(worker, null, task);
    }

    @Override
    public <T> Handle<T> spawn(AutoCloseable resource, Task<T> task) {
        java.util.Objects.requireNonNull(resource, "resource");
        java.util.Objects.requireNonNull(task, "task");
        if (rootLevel && !consumed) {
            return spawnOwning(engine.placeRootLevel(), resource, task);
        }
        Worker here = Worker.current();
        return spawnOwning(here == null || here.engine() != engine ? 0 : here.index(), resource, task);
    }

    @Override
    public <T> Handle<T> spawnOn(int worker, AutoCloseable resource, Task<T> task) {
        java.util.Objects.requireNonNull(resource, "resource");
        java.util.Objects.requireNonNull(task, "task");
        return spawnOwning(worker, resource, task);
    }

    /** A spawn; {@code owned} (or null) is closed when the task ends, and not taken if the spawn is refused. */
    private <T> Handle<T> spawnOwning(int worker, AutoCloseable owned, Task<T> task) {
        if (worker < 0 || worker >= engine.workerCount()) {
            throw new IllegalArgumentException("worker must be between 0 and " + (engine.workerCount() - 1)
                    + ", was " + worker);
        }
        if (!CONSUMED.compareAndSet(this, false, true)) {
            throw new IllegalStateException("context '" + label + "' already spawned a task; take child(label) for"
                    + " each task you spawn");
        }
        return engine.spawn(node, worker, label, task, owned);
    }

    @Override
    public Context child(String childLabel) {
        if (childLabel == null || !isLabel(childLabel)) {
            throw new IllegalArgumentException("label must match [a-zA-Z][a-zA-Z0-9_]*, was '" + childLabel + "'");
        }
        if (childLabel.startsWith("runtime")) {
            throw new IllegalArgumentException("labels starting with 'runtime' are reserved, was '" + childLabel + "'");
        }
        return new EngineContext(engine, engine.supervision().child(node),
                label.isEmpty() ? childLabel : label + "." + childLabel, rootLevel);
    }

    /**
     * Whether {@code text} matches {@code [a-zA-Z][a-zA-Z0-9_]*}: checked by hand, as a server takes a child
     * context per connection and a regular expression's matcher is an allocation each.
     */
    static boolean isLabel(String text) {
        if (text.isEmpty() || !isAsciiLetter(text.charAt(0))) {
            return false;
        }
        for (int i = 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isAsciiLetter(c) && !(c >= '0' && c <= '9') && c != '_') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public int workers() {
        return engine.workerCount();
    }

    @Override
    public void stop(int code, Duration timeout) {
        if (timeout != null && timeout.isNegative()) {
            // Refused before stop is signalled: a bad call must not set the code every holder reads.
            throw new IllegalArgumentException("stop timeout must not be negative, was " + timeout);
        }
        StopState state = engine.stopState();
        if (state.isShutDown()) {
            throw new dev.lockstep.ClosedException("stop(" + code + "): the runtime has shut down");
        }
        state.stop(code);
        if (timeout == null) {
            awaitDrained(state, code);
            return;
        }
        try {
            timeout(timeout, () -> {
                awaitDrained(state, code);
                return null;
            });
        } catch (TimeoutException expired) {
            throw new TimeoutException("stop(" + code + ") timed out after " + timeout
                    + ": a holder of stopped() did not close its signal", expired);
        }
    }

    /** Waits until every holder closed its signal; once the run is over none can, and the wait ends Closed. */
    private static void awaitDrained(StopState state, int code) {
        Fibers.awaitUntil(state::drainedOrShutDown, state.drainedList());
        if (!state.drained()) {
            throw new dev.lockstep.ClosedException("stop(" + code + "): the runtime shut down while a holder of"
                    + " stopped() still had its signal open");
        }
    }

    @Override
    public Signal stopped() {
        return engine.stopState().signal();
    }

    // ---- Clock ----

    @Override
    public Instant now() {
        Worker worker = Worker.requireCurrent("Clock.now");
        long nanos = worker.ring().wallNanos(liveNanos(worker));
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    @Override
    public long monotonicNanos() {
        return liveNanos(Worker.requireCurrent("Clock.monotonicNanos"));
    }

    @Override
    public void sleep(Duration duration) {
        sleeper(duration).await();
    }

    @Override
    public void sleepUntil(Instant deadline) {
        Worker worker = Worker.requireCurrent("Clock.sleepUntil");
        long deadlineNanos = epochNanos(deadline);
        long now = liveNanos(worker);
        long wall = worker.ring().wallNanos(now);
        if (wall != now) {
            // Timers run on the worker's monotonic clock: the wall-clock deadline is that far from now on it.
            deadlineNanos = saturatingAdd(now, saturatingSubtract(deadlineNanos, wall));
        }
        worker.<Void>register(new TimerRequest(deadlineNanos)).await();
    }

    @Override
    public Operation<Void> sleeper(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("sleep duration must not be negative, was " + duration);
        }
        Worker worker = Worker.requireCurrent("Clock.sleeper");
        return worker.register(new TimerRequest(saturatingAdd(liveNanos(worker), nanos(duration))));
    }

    /** The worker's clock read now: its cached time may be as old as the last service turn. */
    static long liveNanos(Worker worker) {
        return Math.max(worker.nowNanos(), worker.ring().nowNanos());
    }

    @Override
    public <T> T timeout(Duration duration, Callable<T> body) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + duration);
        }
        Fiber fiber = Fibers.current();
        if (fiber == null) {
            throw new IllegalStateException("Clock.timeout must be called from a task, not from thread "
                    + Thread.currentThread().getName());
        }
        Worker worker = fiber.home();
        long now = liveNanos(worker);
        long deadline = saturatingAdd(now, nanos(duration));
        Operation<Void> timer = worker.register(new TimerRequest(deadline));
        Fiber.TimeoutScope scope = fiber.openScope(nanos(duration), timer);
        try {
            // The timer wakes the scope (and so the fiber) when it fires. A deadline that has passed when the scope
            // opens (a zero timeout) has expired already: the body's first wait fails, whichever of its timer and
            // what the body waits on a later service turn would see first (on a loaded machine a 1 ms sleep can
            // fall due in the same turn).
            if (deadline <= now || timer.poll(scope).isReady()) {
                scope.wake();
            }
            return body.call();
        } catch (TimeoutException timedOut) {
            throw timedOut;
        } catch (RuntimeException | Error unchecked) {
            throw unchecked;
        } catch (Exception checked) {
            throw new ExitedException("timeout body failed: " + checked, checked);
        } finally {
            fiber.closeScope(scope);
        }
    }

    static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    static long saturatingSubtract(long a, long b) {
        long difference = a - b;
        if (((a ^ b) & (a ^ difference)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return difference;
    }

    static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    static long epochNanos(Instant instant) {
        try {
            return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
        } catch (ArithmeticException overflow) {
            return instant.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    // ---- Storage ----

    @Override
    public Operation<OpenedBlob> open(String partition, byte[] name, OpenOptions options) {
        return engine.storage().open(partition, name, options);
    }

    @Override
    public BufferPool buffers() {
        return Worker.requireCurrent("Context.buffers").buffers();
    }

    @Override
    public java.util.random.RandomGenerator random() {
        return Worker.requireCurrent("Context.random").engine().kernel().random();
    }

    @Override
    public Operation<Void> remove(String partition, byte[] name) {
        return engine.storage().remove(partition, name);
    }

    @Override
    public Operation<Void> rename(String partition, byte[] from, byte[] to) {
        return engine.storage().rename(partition, from, to);
    }

    @Override
    public Operation<Void> syncPartition(String partition) {
        return engine.storage().syncPartition(partition);
    }

    @Override
    public Operation<List<byte[]>> scan(String partition) {
        return engine.storage().scan(partition);
    }

    // ---- Network ----

    @Override
    public Operation<Listener> bind(InetSocketAddress address, dev.lockstep.SocketOptions options) {
        return EngineNetwork.bind(engine, address, options);
    }

    @Override
    public Operation<Connection> dial(InetSocketAddress address, dev.lockstep.SocketOptions options) {
        return EngineNetwork.dial(engine, address, options);
    }

    @Override
    public String digest() {
        return engine.digest();
    }

    @Override
    public String toString() {
        return "Context(" + (label.isEmpty() ? "root" : label) + ")";
    }
}
