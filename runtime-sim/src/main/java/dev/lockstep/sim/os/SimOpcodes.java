package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.SimNode;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Site;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What each opcode does to the simulated kernel when a {@link SimRing}'s request is performed: reads and writes
 * through the file system's page cache, syncs, truncation and allocation, receives, sends and accepts on the
 * simulated network, and the path calls a ring runs at submission. The draws a transfer makes (a spurious
 * {@code EINTR} or {@code EAGAIN}, a short length) come from the kernel's generator at the sites named here, in
 * the order the ring performs its requests, which is part of every seed's schedule.
 *
 * <p>The simulator's thread only.
 */
final class SimOpcodes {
    private final SimKernel kernel;

    SimOpcodes(SimKernel kernel) {
        this.kernel = kernel;
    }

    /**
     * Performs a request whose time has come: its decided result, or what its opcode does now. A transfer may come
     * out short, fail spuriously, or find nothing to move yet ({@link SimRing#SimRing.STILL_PENDING}), as the seed draws.
     *
     * @param request the request
     * @return its result, {@code -errno}, or {@link SimRing#SimRing.STILL_PENDING} if it keeps waiting
     */
    int perform(SimRequest request) {
        if (request.decidedResult != SimRing.STILL_PENDING) {
            if (request.opcode == Opcode.CONNECT && !request.cancelled
                    && request.description instanceof SocketDescription socket) {
                kernel.network().connectDelivered(socket.socket);
            }
            return request.decidedResult;
        }
        return switch (request.opcode) {
            case NOP -> 0;
            case READ -> read(request);
            case WRITE -> write(request);
            case FSYNC -> fsync(request);
            case FTRUNCATE -> ftruncate(request);
            case FALLOCATE -> fallocate(request);
            case RECV -> recv(request);
            case SEND -> send(request);
            case ACCEPT -> accept(request);
            case STATX -> statx(request);
            case CONNECT, ASYNC_CANCEL, BLOCKING_CALL, OPENAT, MKDIRAT, UNLINKAT, RENAMEAT ->
                    throw new IllegalStateException("decided at submission: " + request.opcode);
        };
    }

    /** Rolls the spurious errors of a transfer; returns the error, or 0 if none. */
    private int spuriousError() {
        KernelBehavior behavior = kernel.behavior();
        if (kernel.generator().chance(Site.SPURIOUS_EINTR, behavior.spuriousInterruptRate())) {
            return -Errno.EINTR;
        }
        if (kernel.generator().chance(Site.SPURIOUS_EAGAIN, behavior.spuriousAgainRate())) {
            return -Errno.EAGAIN;
        }
        return 0;
    }

    /** Rolls a short transfer: the length to ask for, in {@code [1, length - 1]} when short. */
    private int transferLength(Site site, double rate, int length) {
        boolean shortTransfer = kernel.generator().chance(site, rate);
        if (shortTransfer && length >= 2) {
            return 1 + kernel.generator().nextInt(site, length - 1);
        }
        return length;
    }

    /**
     * Linux's refusal of a misaligned direct transfer, as ext4 on Linux 6.18 gives it: {@code EINVAL} unless the
     * file offset and the length are multiples of the alignment. A misaligned memory address is accepted (ext4
     * moves the bytes although {@code statx} advertises a memory alignment; other file systems refuse it — the
     * engine refuses it at the call on every runtime, so neither kernel sees one). A direct read at or past the
     * end of the file returns 0 before any check.
     *
     * @return 0 to go on, 1 for "end of file", or a negative errno
     */
    private static int directRefusal(FileDescription file, SimRequest request, boolean read) {
        if (read && request.offset >= file.fileSystem.size(file.handle)) {
            return 1;
        }
        long mask = FileDescription.DIRECT_IO_ALIGNMENT - 1;
        if (((request.offset | request.length) & mask) != 0) {
            return -Errno.EINVAL;
        }
        return 0;
    }

    private int read(SimRequest request) {
        if (!(request.description instanceof FileDescription file)) {
            return -Errno.EINVAL; // the engine receives from sockets with RECV; pread on a socket is ESPIPE
        }
        if (file.direct) {
            int refusal = directRefusal(file, request, true);
            if (refusal != 0) {
                return refusal == 1 ? 0 : refusal;
            }
        }
        int spurious = spuriousError();
        if (spurious != 0) {
            return spurious;
        }
        // Direct reads are not short but at the end of the file: the device moves whole blocks.
        int asked = file.direct ? request.length
                : transferLength(Site.SHORT_READ, kernel.behavior().shortReadRate(), request.length);
        int read = file.fileSystem.read(file.handle, request.offset, request.buffer, asked);
        if (read == Auditor.BLOCK_BYTES && file.fileSystem.faults().corruptReadRate() == 0) {
            request.movedUnchanging = file.fileSystem.unchangingBytes(file.handle, request.offset, read);
        }
        return read;
    }

    private int write(SimRequest request) {
        if (!(request.description instanceof FileDescription file)) {
            return -Errno.EINVAL; // the engine sends on sockets with SEND
        }
        if (file.direct) {
            int refusal = directRefusal(file, request, false);
            if (refusal != 0) {
                return refusal;
            }
        }
        int spurious = spuriousError();
        if (spurious != 0) {
            return spurious;
        }
        int asked = file.direct ? request.length
                : transferLength(Site.SHORT_WRITE, kernel.behavior().shortWriteRate(), request.length);
        byte[] data = new byte[asked];
        MemorySegment.copy(request.buffer, ValueLayout.JAVA_BYTE, 0, data, 0, asked);
        boolean durable = (request.rwFlags & Submission.RWF_DSYNC) != 0;
        int written = file.fileSystem.writeOwned(file.handle, request.offset, data, durable);
        if (durable && written == asked) {
            kernel.syncDone();
        }
        if (written == asked) {
            request.movedUnchanging = data; // the file system's now, which nothing changes (writeOwned)
        }
        return written;
    }

    private int fsync(SimRequest request) {
        if (!(request.description instanceof FileDescription file)) {
            return -Errno.EINVAL;
        }
        boolean dataOnly = (request.flags & Submission.FSYNC_DATASYNC) != 0;
        int result = file.fileSystem.sync(file.handle, dataOnly);
        if (result == 0) {
            kernel.syncDone();
        }
        return result;
    }

    /**
     * The system call of a path request, run by {@link SyscallLatency#runOffloaded} through the simulated kernel's own
     * calls (so with their latency, faults and audit). Paths are absolute or relative to the working directory:
     * the engine never submits one relative to a directory fd, which this kernel refuses with {@code EBADF}.
     */
    dev.lockstep.kernel.BlockingCall pathCall(SimRequest request) {
        String path = new String(request.buffer.asSlice(0, request.length).toArray(
                java.lang.foreign.ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8);
        String newPath = request.opcode != Opcode.RENAMEAT ? null : new String(request.buffer.asSlice(
                request.offset, Submission.nulTerminatedLength(request.buffer, request.offset)).toArray(
                java.lang.foreign.ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8);
        return new dev.lockstep.kernel.BlockingCall() {
            @Override
            public int run() {
                if (request.fd != Submission.AT_FDCWD) {
                    return -Errno.EBADF;
                }
                try {
                    switch (request.opcode) {
                        case OPENAT -> {
                            return kernel.system().open(path, request.flags);
                        }
                        case MKDIRAT -> kernel.system().mkdir(path);
                        case RENAMEAT -> kernel.system().rename(path, newPath);
                        case UNLINKAT -> {
                            if ((request.flags & Submission.AT_REMOVEDIR) != 0) {
                                kernel.system().rmdir(path);
                            } else {
                                kernel.system().unlink(path);
                            }
                        }
                        default -> throw new IllegalStateException("not a path request: " + request.opcode);
                    }
                    return 0;
                } catch (dev.lockstep.kernel.KernelException refused) {
                    return -refused.errno();
                }
            }

            @Override
            public dev.lockstep.kernel.CallSite requestedFrom() {
                return request.requestedFrom;
            }
        };
    }

    /** {@code statx} of an fd: what the engine asks for (type, size, direct I/O alignment), at the struct's offsets. */
    private int statx(SimRequest request) {
        if (!(request.description instanceof FileDescription file)) {
            return -Errno.EINVAL;
        }
        long size;
        try {
            size = file.fileSystem.size(file.handle);
        } catch (dev.lockstep.kernel.KernelException refused) {
            return -refused.errno(); // the power is off, or the handle is from before a crash
        }
        int answered = request.flags & (dev.lockstep.kernel.Statx.TYPE | dev.lockstep.kernel.Statx.SIZE
                | dev.lockstep.kernel.Statx.DIOALIGN);
        request.buffer.asSlice(0, dev.lockstep.kernel.Statx.BYTES).fill((byte) 0);
        if ((answered & dev.lockstep.kernel.Statx.TYPE) != 0) {
            // The simulated file system holds regular files and directories, and an fd of a directory is not a
            // FileDescription: every file a statx reaches is regular.
            request.buffer.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED,
                    dev.lockstep.kernel.Statx.MODE_OFFSET, (short) (dev.lockstep.kernel.Statx.S_IFREG | 0644));
        }
        request.buffer.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, dev.lockstep.kernel.Statx.MASK_OFFSET,
                answered);
        request.buffer.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, dev.lockstep.kernel.Statx.SIZE_OFFSET,
                size);
        if ((answered & dev.lockstep.kernel.Statx.DIOALIGN) != 0) {
            request.buffer.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                    dev.lockstep.kernel.Statx.DIO_MEM_ALIGN_OFFSET, FileDescription.DIRECT_IO_ALIGNMENT);
            request.buffer.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                    dev.lockstep.kernel.Statx.DIO_OFFSET_ALIGN_OFFSET, FileDescription.DIRECT_IO_ALIGNMENT);
        }
        return 0;
    }

    private int ftruncate(SimRequest request) {
        if (!(request.description instanceof FileDescription file)) {
            return -Errno.EINVAL;
        }
        try {
            file.fileSystem.truncate(file.handle, request.offset);
            return 0;
        } catch (KernelException refused) {
            return -refused.errno();
        }
    }

    private int fallocate(SimRequest request) {
        if (!(request.description instanceof FileDescription file)) {
            return -Errno.EINVAL; // as ftruncate's: the engine never preallocates a socket
        }
        try {
            file.fileSystem.allocate(file.handle, request.offset, request.rangeLength);
            return 0;
        } catch (KernelException refused) {
            return -refused.errno();
        }
    }

    private int recv(SimRequest request) {
        if (!(request.description instanceof SocketDescription socket)) {
            return -Errno.ENOTSOCK;
        }
        int spurious = spuriousError();
        if (spurious != 0) {
            return spurious;
        }
        int asked = transferLength(Site.SHORT_READ, kernel.behavior().shortReadRate(), request.length);
        if ((request.flags & Submission.SELECT_BUFFER) != 0) {
            return recvIntoSelected(request, socket, asked);
        }
        int result = kernel.network().recv(socket.socket, request.buffer, asked);
        if (result == -Errno.EAGAIN) {
            return SimRing.STILL_PENDING; // nothing arrived after all: a real recv keeps waiting
        }
        if (result > 0) {
            answerBoundary(socket.socket);
        }
        return result;
    }

    /**
     * A receive whose buffer the ring selects: the lowest free one, lent to the request only if bytes came
     * ({@link SimRequest#selectedBuffer}), else free again; {@code -ENOBUFS} with every one out.
     */
    private int recvIntoSelected(SimRequest request, SocketDescription socket, int asked) {
        SimProvidedBuffers provided = request.ring.providedBuffers();
        int id = provided.select();
        if (id < 0) {
            return -Errno.ENOBUFS;
        }
        int result = kernel.network().recv(socket.socket, provided.buffer(id), asked);
        if (result <= 0) {
            provided.give(id);
            return result == -Errno.EAGAIN ? SimRing.STILL_PENDING : result;
        }
        request.selectedBuffer = id;
        answerBoundary(socket.socket);
        return result;
    }

    /**
     * Bytes were received on {@code socket}: on a connection a cluster node accepted, that is a request reaching the
     * node; on the other end of one, the node's answer to a request reaching its asker, an
     * {@link SimNode.IoBoundary#ANSWERED} boundary of the node. Draws nothing.
     */
    private static void answerBoundary(SimSocket socket) {
        if (socket.acceptedBy != null) {
            socket.requestReceived = true;
        }
        SimSocket answerer = socket.peer;
        if (answerer != null && answerer.acceptedBy != null && answerer.requestReceived) {
            answerer.acceptedBy.ioBoundary(SimNode.IoBoundary.ANSWERED);
        }
    }

    private int send(SimRequest request) {
        if (!(request.description instanceof SocketDescription socket)) {
            return -Errno.ENOTSOCK;
        }
        int spurious = spuriousError();
        if (spurious != 0) {
            return spurious;
        }
        int asked = transferLength(Site.SHORT_WRITE, kernel.behavior().shortWriteRate(), request.length);
        int window = kernel.network().sendWindow(socket.socket);
        if (window == 0 && asked > 0) {
            return SimRing.STILL_PENDING; // the buffers toward the peer are full: a real send keeps waiting
        }
        asked = Math.min(asked, window);
        byte[] data = new byte[asked];
        MemorySegment.copy(request.buffer, ValueLayout.JAVA_BYTE, 0, data, 0, asked);
        return kernel.network().sendOwned(socket.socket, data); // data is this send's own copy
    }

    private int accept(SimRequest request) {
        if (!(request.description instanceof SocketDescription listener)) {
            return -Errno.ENOTSOCK;
        }
        SimSocket accepted;
        try {
            // As Linux: the descriptor is reserved before a connection is taken off the queue, so with none free
            // the accept fails and the connection waits for the next one.
            kernel.fds().reserve("accept", listener.subject());
            accepted = kernel.network().accept(listener.socket);
        } catch (KernelException e) {
            return -e.errno();
        }
        if (accepted == null) {
            return SimRing.STILL_PENDING;
        }
        accepted.acceptedBy = kernel.nodeRun;
        try {
            return kernel.install(new SocketDescription(kernel.network(), accepted), "accept",
                    request.requestedFrom);
        } catch (KernelException e) {
            return -e.errno();
        }
    }
}
