package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Node;
import dev.lockstep.sim.os.SimFileSystem.Handle;

/**
 * The open file descriptions of a {@link SimFileSystem}: each {@link Handle} with its access, the count of those
 * open, the epoch that makes every older handle stale once the machine crashed or the process died (every call on
 * a stale handle fails {@code EBADF}), and the exclusive lock of {@code flock}, which belongs to a handle and goes
 * with it. Not thread-safe.
 */
final class OpenHandles {
    /** Incremented by each crash and each death of the process; handles from an older epoch are stale. */
    private long epoch;
    private long open;

    long epoch() {
        return epoch;
    }

    /** The handles opened and not yet closed in the current epoch. */
    long openCount() {
        return open;
    }

    /** A new handle on {@code node}, which counts it as open. */
    Handle open(Node node, String path, boolean readable, boolean writable) {
        node.opens++;
        open++;
        return new Handle(node, path, epoch, readable, writable);
    }

    /** Whether a handle was closed, or is from before the last crash or death of the process. */
    boolean isStale(Handle handle) {
        return handle.closed || handle.epoch != epoch;
    }

    /**
     * Checks that a handle may be used.
     *
     * @throws KernelException {@code EBADF} naming the call and the handle's path, if it is stale
     */
    void checkOpen(Handle handle, String call) {
        if (isStale(handle)) {
            throw new KernelException(Errno.EBADF, call, handle.path());
        }
    }

    /**
     * Closes a handle and releases its lock.
     *
     * @throws KernelException {@code EBADF} if it is stale
     */
    void close(Handle handle) {
        checkOpen(handle, "close");
        handle.closed = true;
        handle.node.opens--;
        open--;
        if (handle.node instanceof FileNode file && file.lockOwner == handle) {
            file.lockOwner = null;
        }
    }

    /** Takes {@code file}'s lock for {@code handle}: false if another handle that is not stale holds it. */
    boolean tryLock(Handle handle, FileNode file) {
        if (file.lockOwner != null && file.lockOwner != handle && !isStale(file.lockOwner)) {
            return false;
        }
        file.lockOwner = handle;
        return true;
    }

    /** Makes every handle stale, their locks released with them: the machine crashed or the process died. */
    void invalidateAll() {
        epoch++;
        open = 0;
    }
}
