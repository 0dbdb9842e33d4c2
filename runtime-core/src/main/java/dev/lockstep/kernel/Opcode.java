package dev.lockstep.kernel;

/**
 * The asynchronous requests a {@link Ring} runs. Each matches the io_uring opcode of the same name; the
 * fields of {@link Submission} they use are listed per constant.
 */
public enum Opcode {
    /** No operation; completes with 0. */
    NOP,
    /** {@code pread}: fd, buffer, length, offset, rwFlags. Completes with the bytes read (0 at end of file). */
    READ,
    /** {@code pwrite}: fd, buffer, length, offset, rwFlags. Completes with the bytes written. */
    WRITE,
    /** {@code fsync}: fd; {@code flags = FSYNC_DATASYNC} for {@code fdatasync}. Completes with 0. */
    FSYNC,
    /** {@code recv}: fd, buffer, length. Completes with the bytes received (0 at end of stream). */
    RECV,
    /** {@code send}: fd, buffer, length. Completes with the bytes sent. */
    SEND,
    /** {@code accept4(SOCK_CLOEXEC)}: fd. Completes with the new socket's fd. */
    ACCEPT,
    /** {@code connect}: fd, buffer holding a {@code sockaddr}, length = its size. Completes with 0. */
    CONNECT,
    /**
     * Cancels the request whose user data is {@code target}. Completes with 0 (found), {@code -ENOENT} (not
     * found) or {@code -EALREADY} (running); the target then completes on its own, usually with
     * {@code -ECANCELED}.
     */
    ASYNC_CANCEL,
    /** {@code ftruncate}: fd, offset = the new length. Completes with 0 ({@code IORING_OP_FTRUNCATE}, Linux 6.9+). */
    FTRUNCATE,
    /**
     * A sequence of synchronous {@link SystemCalls} the ring has no opcode for (creating a file and syncing
     * its directory, removing one, listing a directory): {@link Submission#call}, run off the worker that
     * submitted it. It completes with what the call returned. It is never cancelled: an {@code ASYNC_CANCEL}
     * of it completes {@code -ENOENT} or {@code -EALREADY} and the call runs to its end. See
     * {@link BlockingCall} for who runs it and what it may touch.
     */
    BLOCKING_CALL
}
