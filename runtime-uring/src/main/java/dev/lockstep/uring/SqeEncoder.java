package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Turns the engine's {@link Submission}s into io_uring SQEs: each opcode's fields in the places the kernel reads
 * them, and, where the running kernel lacks an opcode ({@link UringSetup}), the same call run on an
 * {@link Offload} thread instead, completing through the ring like any other. A
 * {@link dev.lockstep.kernel.Opcode#BLOCKING_CALL} always runs offloaded.
 *
 * <p>Threads: the ring's owner thread only, as {@link UringRing#stage}, which has checked the submission
 * ({@link Submission#validate()}) and made sure the queue has room for one entry.
 */
final class SqeEncoder {
    /** What {@link UringRing#stage} does after an entry was encoded. */
    enum Staged {
        /** A read or write: counts towards the batch that is submitted at once. */
        READ_OR_WRITE,
        /** A cancellation: submitted at once, with its task work. */
        CANCEL,
        /** Anything else: waits for the next enter. */
        OTHER
    }

    private static final byte OP_NOP = 0;
    private static final byte OP_FSYNC = 3;
    private static final byte OP_ACCEPT = 13;
    private static final byte OP_ASYNC_CANCEL = 14;
    private static final byte OP_CONNECT = 16;
    private static final byte OP_READ = 22;
    private static final byte OP_WRITE = 23;
    private static final byte OP_SEND = 26;
    private static final byte OP_RECV = 27;
    /** Mode of a file an {@code OPENAT} creates, as {@link LinuxSystemCalls#open}'s. */
    private static final int FILE_MODE = 0644;
    /** Mode of a directory a {@code MKDIRAT} creates, as {@link LinuxSystemCalls#mkdir}'s. */
    private static final int DIRECTORY_MODE = 0755;
    private static final int FSYNC_FLAG_DATASYNC = 1;

    private final UringRing ring;
    private final SubmissionQueue queue;
    /** The empty path of a {@code STATX} of an fd ({@code AT_EMPTY_PATH}): one NUL byte, for the ring's life. */
    private final MemorySegment emptyPath;

    /**
     * @param ring the ring whose offloaded calls complete through it
     * @param queue its submission queue
     * @param emptyPath one NUL byte of native memory that lives as long as the ring
     */
    SqeEncoder(UringRing ring, SubmissionQueue queue, MemorySegment emptyPath) {
        this.ring = ring;
        this.queue = queue;
        this.emptyPath = emptyPath;
    }

    /**
     * Writes a checked submission's SQE, or hands it to an offload thread.
     *
     * @param submission the submission, checked
     * @return what the ring does next
     * @throws IllegalArgumentException if a cancellation targets {@link UringRing#WAKE_USER_DATA}
     */
    Staged encode(Submission submission) {
        long userData = submission.userData;
        int fd = submission.fd;
        switch (submission.opcode) {
            case NOP -> queue.write(OP_NOP, -1, 0, 0, 0, 0, userData);
            case READ -> {
                queue.write(OP_READ, fd, submission.offset, submission.buffer.address(), submission.length,
                        submission.rwFlags, userData);
                return Staged.READ_OR_WRITE;
            }
            case WRITE -> {
                queue.write(OP_WRITE, fd, submission.offset, submission.buffer.address(), submission.length,
                        submission.rwFlags, userData);
                return Staged.READ_OR_WRITE;
            }
            case FSYNC -> queue.write(OP_FSYNC, fd, 0, 0, 0,
                    (submission.flags & Submission.FSYNC_DATASYNC) != 0 ? FSYNC_FLAG_DATASYNC : 0, userData);
            case RECV -> {
                if ((submission.flags & Submission.SELECT_BUFFER) != 0) {
                    // No address: the kernel takes a buffer of the ring's group when data arrives.
                    queue.write(OP_RECV, fd, 0, 0, submission.length, 0, userData);
                    queue.selectBufferOfLast(ProvidedBuffers.SQE_BUFFER_SELECT, ProvidedBuffers.GROUP);
                } else {
                    queue.write(OP_RECV, fd, 0, submission.buffer.address(), submission.length, 0, userData);
                }
            }
            // A send to a reset peer must fail with EPIPE, not raise SIGPIPE in the JVM.
            case SEND -> queue.write(OP_SEND, fd, 0, submission.buffer.address(), submission.length,
                    Libc.MSG_NOSIGNAL, userData);
            case ACCEPT -> queue.write(OP_ACCEPT, fd, 0, 0, 0, Libc.SOCK_CLOEXEC, userData);
            // CONNECT carries the sockaddr's length in the offset field.
            case CONNECT -> queue.write(OP_CONNECT, fd, submission.length, submission.buffer.address(), 0, 0, userData);
            // IORING_OP_FTRUNCATE (Linux 6.9+) takes the new length in the offset field; older kernels get an
            // ftruncate on an offload thread, which completes the same way.
            case FTRUNCATE -> {
                long length = submission.offset;
                if (UringSetup.usesFtruncateOpcode()) {
                    queue.write(UringSetup.OP_FTRUNCATE, fd, length, 0, 0, 0, userData);
                } else {
                    Offload.instance().submit(ring, userData, () -> {
                        try {
                            LinuxSystemCalls.instance().truncate(fd, length);
                            return 0;
                        } catch (KernelException refused) {
                            return -refused.errno();
                        }
                    });
                }
            }
            // fallocate(fd, mode, offset, len): IORING_OP_FALLOCATE (Linux 5.6+) takes the range's length in the
            // address field and the mode (0) in the length field; older kernels get an offloaded fallocate.
            case FALLOCATE -> {
                long offset = submission.offset;
                long rangeLength = submission.rangeLength;
                if (UringSetup.usesFallocateOpcode()) {
                    queue.write(UringSetup.OP_FALLOCATE, fd, offset, rangeLength, 0, 0, userData);
                } else {
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().allocate(fd, offset, rangeLength);
                        return 0;
                    });
                }
            }
            // The path opcodes: the path is a NUL-terminated string in the submission's buffer.
            case OPENAT -> {
                long path = submission.buffer.address();
                int flags = LinuxSystemCalls.nativeOpenFlags(submission.flags);
                if (UringSetup.usesPathOpcodes()) {
                    queue.write(UringSetup.OP_OPENAT, fd, 0, path, FILE_MODE, flags, userData);
                } else {
                    String name = pathOf(submission);
                    int engineFlags = submission.flags; // the submission is the engine's again once staged
                    offloadCall(userData, () -> LinuxSystemCalls.instance().open(name, engineFlags));
                }
            }
            case MKDIRAT -> {
                long path = submission.buffer.address();
                if (UringSetup.usesPathOpcodes()) {
                    queue.write(UringSetup.OP_MKDIRAT, fd, 0, path, DIRECTORY_MODE, 0, userData);
                } else {
                    String name = pathOf(submission);
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().mkdir(name);
                        return 0;
                    });
                }
            }
            case UNLINKAT -> {
                long path = submission.buffer.address();
                int flags = submission.flags & Submission.AT_REMOVEDIR;
                if (UringSetup.usesPathOpcodes()) {
                    queue.write(UringSetup.OP_UNLINKAT, fd, 0, path, 0, flags, userData);
                } else {
                    String name = pathOf(submission);
                    offloadCall(userData, () -> {
                        if (flags != 0) {
                            LinuxSystemCalls.instance().rmdir(name);
                        } else {
                            LinuxSystemCalls.instance().unlink(name);
                        }
                        return 0;
                    });
                }
            }
            case RENAMEAT -> {
                long from = submission.buffer.address();
                long to = submission.buffer.address() + submission.offset;
                if (UringSetup.usesPathOpcodes()) {
                    // renameat(olddirfd, oldpath, newdirfd, newpath, 0): the new directory fd goes in the length
                    // field, the new path's address in the offset field.
                    queue.write(UringSetup.OP_RENAMEAT, fd, to, from, Submission.AT_FDCWD, 0, userData);
                } else {
                    String fromName = pathOf(submission);
                    String toName = secondPathOf(submission);
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().rename(fromName, toName);
                        return 0;
                    });
                }
            }
            case STATX -> {
                long status = submission.buffer.address();
                int mask = submission.flags;
                if (UringSetup.usesPathOpcodes()) {
                    // statx(fd, "", AT_EMPTY_PATH, mask, buffer): the buffer's address goes in the offset field.
                    queue.write(UringSetup.OP_STATX, fd, status, emptyPath.address(), mask, Libc.AT_EMPTY_PATH,
                            userData);
                } else {
                    MemorySegment buffer = submission.buffer;
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().statxInto(fd, mask, buffer);
                        return 0;
                    });
                }
            }
            case BLOCKING_CALL -> {
                // No SQE: the call runs on an offload thread and its completion comes back through offloaded().
                Offload.instance().submit(ring, userData, Objects.requireNonNull(submission.call, "submission.call"));
            }
            case ASYNC_CANCEL -> {
                if (submission.target == UringRing.WAKE_USER_DATA) {
                    throw new IllegalArgumentException("the ring's wake-up (user data 0x"
                            + Long.toHexString(UringRing.WAKE_USER_DATA) + ") cannot be cancelled: " + submission);
                }
                queue.write(OP_ASYNC_CANCEL, -1, 0, submission.target, 0, 0, userData);
                return Staged.CANCEL;
            }
        }
        return Staged.OTHER;
    }

    /** Runs one system call on an offload thread, completing with its result or {@code -errno}. */
    private void offloadCall(long userData, java.util.function.IntSupplier call) {
        Offload.instance().submit(ring, userData, () -> {
            try {
                return call.getAsInt();
            } catch (KernelException refused) {
                return -refused.errno();
            }
        });
    }

    private static String secondPathOf(Submission submission) {
        byte[] bytes = submission.buffer.asSlice(submission.offset, submission.secondPathLength()).toArray(JAVA_BYTE);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String pathOf(Submission submission) {
        byte[] bytes = submission.buffer.asSlice(0, submission.length).toArray(JAVA_BYTE);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
}
