package dev.lockstep;

import java.time.Duration;

/**
 * Spawning, the supervision tree, and coordinated stop.
 *
 * <h2>Supervision</h2>
 * Every context is bound to a node of a tree. {@link #child(String)} makes a new node below this one, with no
 * task. {@link #spawn(Task)} <em>consumes</em> this context: the task runs at a new node below this one, with
 * a fresh context of its own, and a second {@code spawn} from the same context throws
 * {@link IllegalStateException} (take {@code child(label)} first for each task you spawn). When a spawned
 * task finishes — returning, throwing or aborted — every task below the node of the context that spawned it
 * is aborted, including tasks spawned from {@code child} contexts taken from it earlier. Siblings under other
 * nodes are unaffected. When the root task finishes, the runner aborts every task.
 *
 * <p>Spawning from a context whose node was aborted returns a handle that fails with
 * {@link ClosedException} without running the task.
 *
 * <h2>Abort</h2>
 * Aborting a task makes the operation it is waiting on, and every later {@code await} in it, throw
 * {@link ClosedException}; its {@code finally} blocks run. Its handle fails with {@link ClosedException}.
 *
 * <h2>Stop</h2>
 * {@link #stop(int, Duration)} signals every holder of a {@link Signal} from {@link #stopped()}, and waits
 * until each holder has closed its signal. It does not abort tasks.
 */
public interface Spawner {

    /**
     * Starts {@code task} on a new fiber, placed by the default placement:
     * <ul>
     *   <li>a <em>root-level</em> task — one the root task spawns, from its own context or from a
     *       {@link #child} of it — goes to the next worker in round-robin order, starting with the worker after
     *       the root task's (worker 0). So an application's services, and the tasks its root accept loop spawns
     *       for each connection, spread over every worker without naming one;</li>
     *   <li>every other task goes to the current worker: a task's helpers share its worker's ring, timers and
     *       caches, and polling each other's operations costs no cross-worker hop.</li>
     * </ul>
     * With one worker everything runs on it. In the simulator the placement follows the same rule, in the seeded
     * order of the spawns, so a seed still decides it. {@link #spawnOn} places a task explicitly.
     *
     * @param task the task
     * @param <T> its value
     * @return the task's handle; the task runs whether or not the handle is awaited
     * @throws IllegalStateException if this context already spawned
     */
    <T> Handle<T> spawn(Task<T> task);

    /**
     * Starts {@code task} on a new fiber on the given worker; as {@link #spawn(Task)} otherwise.
     *
     * @param worker the worker index, {@code 0 <= worker < workers()}
     * @param task the task
     * @param <T> its value
     * @return the task's handle
     * @throws IllegalArgumentException if {@code worker} is out of range
     * @throws IllegalStateException if this context already spawned
     */
    <T> Handle<T> spawnOn(int worker, Task<T> task);

    /**
     * Starts {@code task} as {@link #spawn(Task)} does, handing it {@code resource} to own: the runtime closes
     * {@code resource} when the task ends, however it ends — its body returned or threw, or never ran at all
     * because its supervisor was aborted, or the run ended, between this call and the task's first step. So a
     * resource handed to a task is never left open, as the connections of an accept loop must not be:
     * <pre>{@code
     * while (true) {
     *     Connection connection = listener.accept().await();
     *     ctx.child("handler").spawn(connection, handler -> serve(handler, connection));
     * }
     * }</pre>
     * The body may close {@code resource} itself first (the close of every Lockstep resource is idempotent). As in
     * a {@code try}-with-resources statement, a failure of that close fails the task when its body returned, and
     * is attached as suppressed to what the body threw, or to the {@link ClosedException} of a task that never ran.
     *
     * @param resource what the task owns, closed when it ends
     * @param task the task
     * @param <T> its value
     * @return the task's handle
     * @throws IllegalStateException if this context already spawned; {@code resource} is then not taken (the caller
     *     still owns it)
     */
    <T> Handle<T> spawn(AutoCloseable resource, Task<T> task);

    /**
     * {@link #spawn(AutoCloseable, Task)} on the given worker, placed as {@link #spawnOn(int, Task)} places it.
     *
     * @param worker the worker index, {@code 0 <= worker < workers()}
     * @param resource what the task owns, closed when it ends
     * @param task the task
     * @param <T> its value
     * @return the task's handle
     * @throws IllegalArgumentException if {@code worker} is out of range; {@code resource} is then not taken
     * @throws IllegalStateException if this context already spawned; {@code resource} is then not taken
     */
    <T> Handle<T> spawnOn(int worker, AutoCloseable resource, Task<T> task);

    /**
     * A new context at a new node below this one. Its label is this context's label, a dot, and
     * {@code label}.
     *
     * @param label {@code [a-zA-Z][a-zA-Z0-9_]*}, and not starting with {@code runtime}
     * @return the child context
     * @throws IllegalArgumentException if the label is invalid, naming it
     */
    Context child(String label);

    /**
     * The dotted label of this context; the root's is {@code ""}.
     *
     * @return the label
     */
    String label();

    /**
     * The number of workers of this runtime.
     *
     * @return at least 1
     */
    int workers();

    /**
     * Signals stop with {@code code} and waits for every open {@link Signal} to be closed.
     *
     * <p>The first code wins: later calls (concurrent or not) wait the same way and do not change it. A call
     * after every holder closed returns at once.
     *
     * @param code the stop code delivered to {@link Signal#await()}
     * @param timeout how long to wait for holders, or {@code null} to wait forever
     * @throws TimeoutException if a holder still has its signal open after {@code timeout}
     * @throws IllegalArgumentException if {@code timeout} is negative, naming it; stop is then not signalled
     * @throws ClosedException once the run is over ({@code Runner.start} returned or is returning) while a
     *     holder's signal is still open, or when called after it
     */
    void stop(int code, Duration timeout);

    /**
     * A signal that resolves when {@link #stop} is called, immediately if it already was. The caller holds
     * it — {@code stop} waits for it — until it is closed.
     *
     * @return a new, open signal
     */
    Signal stopped();
}
