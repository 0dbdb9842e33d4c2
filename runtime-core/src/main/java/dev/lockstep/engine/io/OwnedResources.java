package dev.lockstep.engine.io;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The fds a run's blobs, listeners and connections own, each with its owner's close: what is still open when the
 * run ends is closed by {@link #closeAll}. An entry goes when its fd closes. Thread-safe: owners are recorded and
 * their fds close on any worker or thread.
 */
public final class OwnedResources {
    private final ConcurrentHashMap<SharedFd, Runnable> owned = new ConcurrentHashMap<>();

    /** Records {@code fd}, owned by a blob, listener or connection handed to user code, with its close. */
    public void own(SharedFd fd, Runnable closeOwner) {
        owned.put(fd, closeOwner);
        fd.ownedBy(this);
    }

    /** Forgets {@code fd}, which has closed; any thread, must not throw. */
    void forget(SharedFd fd) {
        owned.remove(fd);
    }

    /**
     * Closes every owner still recorded; a close that throws goes to {@code failed} and the others still run.
     *
     * @return how many owners were closed
     */
    public int closeAll(Consumer<Throwable> failed) {
        int closed = 0;
        for (Runnable closeOwner : List.copyOf(owned.values())) {
            try {
                closeOwner.run();
                closed++;
            } catch (RuntimeException | Error failure) {
                failed.accept(failure);
            }
        }
        return closed;
    }
}
