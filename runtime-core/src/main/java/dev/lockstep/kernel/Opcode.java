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
     * {@code openat}: fd = the directory fd or {@link Submission#AT_FDCWD}, buffer = the path as UTF-8 ending in a
     * NUL byte, length = the path's bytes without the NUL, flags = {@link SystemCalls}' {@code O_*} flags (the
     * ring adds close-on-exec; a created file gets mode {@code 0644}). Completes with the new fd.
     */
    OPENAT,
    /**
     * {@code mkdirat}: fd = the directory fd or {@link Submission#AT_FDCWD}, buffer and length = the path as for
     * {@link #OPENAT}. Creates the directory with mode {@code 0755}; completes with 0.
     */
    MKDIRAT,
    /**
     * {@code unlinkat}: fd = the directory fd or {@link Submission#AT_FDCWD}, buffer and length = the path as for
     * {@link #OPENAT}, flags = {@link Submission#AT_REMOVEDIR} to remove an empty directory. Completes with 0.
     */
    UNLINKAT,
    /**
     * {@code statx} of an open fd ({@code AT_EMPTY_PATH}): fd, buffer = {@link Statx#BYTES} bytes that the
     * kernel fills as Linux's {@code struct statx}, flags = the {@code STATX_*} mask ({@link Statx#SIZE},
     * {@link Statx#DIOALIGN}). Completes with 0.
     */
    STATX,
    /**
     * {@code renameat}: fd = {@link Submission#AT_FDCWD} (both paths absolute or relative to the working
     * directory), buffer = the old path as UTF-8 ending in a NUL byte followed by the new path ending in a NUL
     * byte, length = the old path's bytes without its NUL, offset = where the new path starts in the buffer
     * ({@code length + 1}). Replaces an existing file at the new path atomically; completes with 0
     * ({@code IORING_OP_RENAMEAT}, Linux 5.11+).
     */
    RENAMEAT,
    /**
     * {@code fallocate} with mode 0: fd, offset = where the range starts, {@link Submission#rangeLength} = its
     * bytes (more than zero). Allocates disk space for the range and extends the file to its end if it is shorter;
     * never shrinks it, and bytes that were never written read as zeros. Completes with 0, or {@code -ENOSPC} when
     * the space is not there ({@code IORING_OP_FALLOCATE}, Linux 5.6+).
     */
    FALLOCATE,
    /**
     * A sequence of synchronous {@link SystemCalls} the ring has no opcode for (listing a directory: there is
     * no {@code getdents} opcode): {@link Submission#call}, run off the worker that
     * submitted it. It completes with what the call returned. It is never cancelled: an {@code ASYNC_CANCEL}
     * of it completes {@code -ENOENT} or {@code -EALREADY} and the call runs to its end. See
     * {@link BlockingCall} for who runs it and what it may touch.
     */
    BLOCKING_CALL
}
