package dev.lockstep.engine.io;

import dev.lockstep.ClosedException;
import dev.lockstep.kernel.SystemCalls;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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
    /** What it is, or the first word of it when {@link #named} completes it. */
    private final String subject;
    /** What {@link #subject} names (an address), formatted only when a message needs it; null if nothing. */
    private final Object named;
    /**
     * One reference for the owner plus one per live request; 0 means closed. Changed only through
     * {@link #REFERENCES} (a field, not an {@code AtomicInteger}: one object less per open socket).
     */
    private volatile int references = 1;
    private static final VarHandle REFERENCES;

    static {
        try {
            REFERENCES = MethodHandles.lookup().findVarHandle(SharedFd.class, "references", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param fd the fd, owned from now on
     * @param system closes it
     * @param subject what it is, for messages (a path or an address)
     */
    public SharedFd(int fd, SystemCalls system, String subject) {
        this(fd, system, subject, null);
    }

    /**
     * A fd whose subject is {@code kind + " " + named}, formatted only when a message needs it: an accepted
     * connection's peer address is not turned into text unless something fails.
     *
     * @param fd the fd, owned from now on
     * @param system closes it
     * @param kind what it is ({@code "connection to"})
     * @param named what it names (the peer's address)
     */
    public SharedFd(int fd, SystemCalls system, String kind, Object named) {
        this.fd = fd;
        this.system = system;
        this.subject = kind;
        this.named = named;
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
        return named == null ? subject : subject + " " + named;
    }

    /**
     * Takes a reference for a request.
     *
     * @return this
     * @throws ClosedException if already closed
     */
    public SharedFd acquire() {
        while (true) {
            int count = references;
            if (count == 0) {
                throw new ClosedException(subject() + " is closed");
            }
            if (REFERENCES.compareAndSet(this, count, count + 1)) {
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
            int count = references;
            if (count == 0) {
                return false;
            }
            if (REFERENCES.compareAndSet(this, count, count + 1)) {
                return true;
            }
        }
    }

    /** Told once the fd is closed: the engine's record of what to close when the run ends forgets it. */
    private volatile OwnedResources owner;

    /**
     * Sets the record that forgets this fd once the last reference went and the fd was closed.
     *
     * @param resources the record; its {@link OwnedResources#forget} runs on the releasing thread
     */
    void ownedBy(OwnedResources resources) {
        this.owner = resources;
    }

    /** Drops a reference; the last one closes the fd. */
    public void release() {
        int before = (int) REFERENCES.getAndAdd(this, -1);
        assert before > 0 : subject() + " released with " + before + " references";
        if (before == 1) {
            try {
                system.close(fd);
            } finally {
                OwnedResources resources = owner;
                if (resources != null) {
                    resources.forget(this);
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
        return references > 0;
    }
}
