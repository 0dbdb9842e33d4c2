package dev.lockstep.uring;

import java.util.Objects;

/**
 * The kernel refuses io_uring to this process, so runtime-uring cannot run here: thrown by
 * {@link UringRunner.Builder#build()} (which asks the kernel for one small ring before anything else) and by
 * {@link UringKernel#openRing} when a ring is refused for one of these reasons later.
 *
 * <p>The message names what refused, what the kernel answered and how to change it; {@link #reason()} says the
 * same for code, for example to fall back to another runtime. It is an {@link UnsupportedOperationException},
 * like the refusal of an unsupported platform, so one {@code catch} covers "this runtime cannot run here".
 */
public final class UringUnavailableException extends UnsupportedOperationException {
    private static final long serialVersionUID = 1L;

    /** What refused io_uring. */
    public enum Reason {
        /** {@code kernel.io_uring_disabled = 2}: io_uring is off for every process. */
        DISABLED_BY_SYSCTL,
        /**
         * {@code kernel.io_uring_disabled = 1}: io_uring only for processes with {@code CAP_SYS_ADMIN} or in the
         * group {@code kernel.io_uring_group}, and this thread has neither.
         */
        RESTRICTED_BY_SYSCTL,
        /** A seccomp filter on this thread makes {@code io_uring_setup} fail (Docker's default profile does). */
        BLOCKED_BY_SECCOMP,
        /** The kernel has no {@code io_uring_setup} ({@code ENOSYS} without a seccomp filter). */
        NOT_IN_KERNEL,
        /**
         * {@code ENOMEM}: on kernels before 5.12 ring memory is charged to {@code RLIMIT_MEMLOCK}, which is too
         * small; on later kernels, memory itself (or the memory cgroup) ran out.
         */
        OUT_OF_LOCKED_MEMORY,
        /** {@code EPERM} with neither the sysctl nor a seccomp filter to explain it, e.g. an LSM policy. */
        NOT_PERMITTED,
    }

    private final Reason reason;
    private final int errno;

    UringUnavailableException(Reason reason, int errno, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.errno = errno;
    }

    /**
     * What refused io_uring.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * What {@code io_uring_setup} answered.
     *
     * @return the positive errno, e.g. {@code EPERM}
     */
    public int errno() {
        return errno;
    }
}
