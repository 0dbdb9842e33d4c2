package dev.lockstep.engine;

import dev.lockstep.ClosedException;
import dev.lockstep.kernel.SystemCalls;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file descriptor shared by its owner (a blob, a socket) and the requests using it. The fd is closed when
 * the last reference goes, so its number cannot be reused by the kernel while a request that names it is
 * still queued or in flight.
 *
 * <p>Thread-safe and lock-free (a CAS loop on the count), so requests may take and drop references inside a
 * worker's critical section. Every {@code acquire} or successful {@code tryAcquire} is matched by one
 * {@code release}, and the owner's reference is released once: then the count reaches 0 exactly once, and the
 * thread that takes it there closes the fd; after that no reference can be taken again.
 */
public final class SharedFd {
    private final int fd;
    private final SystemCalls system;
    private final String subject;
    /** One reference for the owner plus one per live request; 0 means closed. */
    private final AtomicInteger references = new AtomicInteger(1);

    /**
     * @param fd the fd, owned from now on
     * @param system closes it
     * @param subject what it is, for messages (a path or an address)
     */
    public SharedFd(int fd, SystemCalls system, String subject) {
        this.fd = fd;
        this.system = system;
        this.subject = subject;
    }

    /**
     * The fd number, valid while a reference is held.
     *
     * @return the fd
     */
    public int fd() {
        return fd;
    }

    /**
     * What the fd is.
     *
     * @return a path or an address
     */
    public String subject() {
        return subject;
    }

    /**
     * Takes a reference for a request.
     *
     * @return this
     * @throws ClosedException if already closed
     */
    public SharedFd acquire() {
        while (true) {
            int count = references.get();
            if (count == 0) {
                throw new ClosedException(subject + " is closed");
            }
            if (references.compareAndSet(count, count + 1)) {
                return this;
            }
        }
    }

    /**
     * Takes a reference if the fd is still open: for a short synchronous call on the fd ({@code shutdown})
     * that must not reach a number the kernel may already have given to another file.
     *
     * @return true if a reference was taken; the caller then {@link #release()}s it
     */
    public boolean tryAcquire() {
        while (true) {
            int count = references.get();
            if (count == 0) {
                return false;
            }
            if (references.compareAndSet(count, count + 1)) {
                return true;
            }
        }
    }

    /** Run once the fd is closed: the engine forgets it as a resource to close when the run ends. */
    private volatile Runnable onClosed;

    /**
     * Sets what runs once the last reference went and the fd was closed.
     *
     * @param action the action, run on the releasing thread; must not throw
     */
    void whenClosed(Runnable action) {
        this.onClosed = action;
    }

    /** Drops a reference; the last one closes the fd. */
    public void release() {
        if (references.decrementAndGet() == 0) {
            try {
                system.close(fd);
            } finally {
                Runnable action = onClosed;
                if (action != null) {
                    action.run();
                }
            }
        }
    }

    /**
     * Whether the fd is still open.
     *
     * @return true until the last reference went
     */
    public boolean isOpen() {
        return references.get() > 0;
    }
}
