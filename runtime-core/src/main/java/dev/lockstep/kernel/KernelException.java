package dev.lockstep.kernel;

/**
 * A kernel call failed. Names the call, its subject (a path, an address, an fd) and the errno.
 */
public final class KernelException extends RuntimeException {
    private final int errno;
    private final String call;
    private final String subject;

    /**
     * @param errno the positive error number
     * @param call the call, e.g. {@code open}
     * @param subject what it was called on, e.g. a path
     */
    public KernelException(int errno, String call, String subject) {
        super(call + "(" + subject + ") failed: " + Errno.describe(errno));
        this.errno = errno;
        this.call = call;
        this.subject = subject;
    }

    /**
     * The error number.
     *
     * @return positive errno
     */
    public int errno() {
        return errno;
    }

    /**
     * The failed call.
     *
     * @return its name
     */
    public String call() {
        return call;
    }

    /**
     * What the call was made on.
     *
     * @return a path, an address or an fd
     */
    public String subject() {
        return subject;
    }
}
