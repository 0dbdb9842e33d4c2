package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A {@link SimKernel}'s fd table, shared by files and sockets: a new fd is the lowest free number from
 * {@link SimKernel#FIRST_FD} below the open-file limit. An fd names a {@link Description}; removing the fd while a
 * request still uses the description keeps the description alive until that request completes. The simulator's
 * thread only.
 */
final class FdTable {
    private final List<Description> descriptions = new ArrayList<>();
    private final BitSet usedFds = new BitSet();
    /** Descriptors are numbered below this: the process's open-file limit. */
    private final int openFileLimit;

    FdTable(int openFileLimit) {
        this.openFileLimit = openFileLimit;
        usedFds.set(0, SimKernel.FIRST_FD);
    }

    /**
     * Fails a call that would make a descriptor when none is free, before it does anything else: Linux takes the
     * descriptor first ({@code get_unused_fd_flags}), so an open refused with {@code EMFILE} creates no file, a
     * lock no lock file, a socket no socket, an accept takes no connection off its queue, and no fault is drawn
     * for them.
     *
     * @throws KernelException {@code EMFILE}, naming the call and its subject
     */
    void reserve(String call, String subject) {
        if (usedFds.nextClearBit(SimKernel.FIRST_FD) >= openFileLimit) {
            throw new KernelException(Errno.EMFILE, call, subject);
        }
    }

    /**
     * Installs a description at the lowest free fd; at the limit, closes the description and throws.
     *
     * @throws KernelException {@code EMFILE}, naming the call and the description's subject
     */
    int install(Description description, String call) {
        int fd = usedFds.nextClearBit(SimKernel.FIRST_FD);
        if (fd >= openFileLimit) {
            description.closeFd();
            throw new KernelException(Errno.EMFILE, call, description.subject());
        }
        usedFds.set(fd);
        while (descriptions.size() <= fd) {
            descriptions.add(null);
        }
        assert descriptions.get(fd) == null : "free fd " + fd + " still names " + descriptions.get(fd).describe();
        descriptions.set(fd, description);
        return fd;
    }

    /** The description an fd names, or null if the fd is not open. */
    Description description(int fd) {
        if (fd < SimKernel.FIRST_FD || fd >= descriptions.size()) {
            return null;
        }
        return descriptions.get(fd);
    }

    /** Removes an fd from the table; its description lives on while requests use it. */
    Description remove(int fd) {
        Description description = description(fd);
        if (description != null) {
            assert usedFds.get(fd) : "fd " + fd + " names " + description.describe() + " but is marked free";
            descriptions.set(fd, null);
            usedFds.clear(fd);
            description.closeFd();
        }
        return description;
    }

    /** The open fds, ascending. */
    List<Integer> openFds() {
        List<Integer> fds = new ArrayList<>();
        for (int fd = usedFds.nextSetBit(SimKernel.FIRST_FD); fd >= 0; fd = usedFds.nextSetBit(fd + 1)) {
            fds.add(fd);
        }
        return fds;
    }

    /** Closes every listening socket among the open fds; the fds stay in the table. */
    void closeListeners() {
        for (int fd : openFds()) {
            if (descriptions.get(fd) instanceof SocketDescription socket
                    && socket.socket.state == SimSocket.State.LISTENING) {
                socket.network.close(socket.socket);
            }
        }
    }

    /** Removes every open fd. */
    void removeAll() {
        for (int fd : openFds()) {
            remove(fd);
        }
    }

    /** Adds a line per open fd, ascending: what it names and the line that opened it. */
    void describeOpen(List<String> held) {
        for (int fd : openFds()) {
            Description description = descriptions.get(fd);
            held.add("fd " + fd + " (" + description.describe() + "), opened by " + description.origin);
        }
    }

    /** How many fds are open. */
    int openCount() {
        return usedFds.cardinality() - SimKernel.FIRST_FD;
    }
}
