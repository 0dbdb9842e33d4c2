package dev.lockstep.spi;

/**
 * What {@link dev.lockstep.Search} asks the runtime on the class path, found once through
 * {@link java.util.ServiceLoader}: the simulator answers for calls made from its own tasks and says no to every
 * other caller (runtime-uring has no implementation, so there {@code Search} is a no-op).
 *
 * <p>Implemented by Lockstep's runtimes, not by applications. Each method may be called from any thread; an
 * implementation answers calls that do not come from one of its own tasks as a production runtime does
 * ({@code false}, nothing recorded).
 */
public interface SearchHooks {
    /**
     * See {@link dev.lockstep.Search#faultPoint(String)}.
     *
     * @param name the point's name, checked by the caller
     * @return whether the rare path is taken
     */
    boolean faultPoint(String name);

    /**
     * See {@link dev.lockstep.Search#sometimes(boolean, String)}.
     *
     * @param condition the condition
     * @param label its label, checked by the caller
     */
    void sometimes(boolean condition, String label);

    /**
     * See {@link dev.lockstep.Search#reached(String, long)}.
     *
     * @param label the label, checked by the caller
     * @param value the value
     */
    void reached(String label, long value);
}
