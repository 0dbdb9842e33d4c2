package dev.lockstep;

/**
 * The body of a task: runs on a fiber with its own {@link Context} and returns a value or throws.
 *
 * @param <T> the value the task returns
 */
@FunctionalInterface
public interface Task<T> {
    /**
     * Runs the task.
     *
     * @param context the task's context; spawning from it consumes it (see {@link Spawner#spawn})
     * @return the task's value, delivered to {@link Handle#await()} or returned by {@link Runner#start}
     * @throws Exception any failure; it aborts the task's subtree and is reported to the awaiting handle
     */
    T run(Context context) throws Exception;
}
