package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.SyncFailureModel;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.os.FsNodes.DirectoryNode;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Node;
import dev.lockstep.sim.os.FsNodes.Resize;
import dev.lockstep.sim.os.SimFileSystem.Handle;
import java.lang.foreign.MemorySegment;

/**
 * What a {@link SimFileSystem}'s files hold and the disk they fill: the data calls on an open handle (reads,
 * writes, size changes, syncs) once the file system has power, with their checks of the handle and the arguments,
 * over the {@link PageCache}, with the faults of {@link FsFaults}, and the capacity. The errors are as
 * {@link SimFileSystem} documents them for each call.
 *
 * <h2>Capacity</h2>
 * {@link StorageFaults#capacityBytes()} bounds the sum of the live sizes of every file that is linked or still
 * open ({@link #usedBytes()}). A file's size counts, a hole too, so a preallocation takes its growth at once and a
 * write inside it never finds the disk full. A write at capacity is cut short honestly: it writes what fits and
 * returns that count, or fails {@code ENOSPC} if nothing fits. A size change needs its whole growth or fails
 * {@code ENOSPC} changing nothing.
 *
 * <h2>Syncs</h2>
 * A successful {@code fsync} or {@code fdatasync} of a file applies its journal to the durable image and empties
 * it; of a directory, makes its live entries durable (not its children's contents). A failed one (injected
 * {@code EIO}) follows {@link StorageFaults#syncFailure()}: under {@link SyncFailureModel#LINUX} a file's journal is
 * emptied as if written back, each mutation reaching the durable image or not by seed, while the live image keeps
 * every byte; under {@link SyncFailureModel#OPTIMISTIC}, and for a directory, nothing changes. Not thread-safe.
 */
final class FileStore {
    private final Generator generator;
    private final FsFaults faults;
    private final OpenHandles handles;
    /** The sum of the live sizes of every file that is linked or open: what the capacity bounds. */
    private long usedBytes;

    FileStore(Generator generator, FsFaults faults, OpenHandles handles) {
        this.generator = generator;
        this.faults = faults;
        this.handles = handles;
    }

    /** The bytes the capacity accounts for now. */
    long usedBytes() {
        return usedBytes;
    }

    /** Sets what the capacity accounts for: the live sizes of a file system just restored or recovered. */
    void setUsedBytes(long usedBytes) {
        this.usedBytes = usedBytes;
    }

    /** Frees a file's space if nothing counts it any more (no directory entry names it, no handle has it open). */
    void releaseIfUncounted(FileNode file) {
        if (!file.counted()) {
            usedBytes -= file.live.size();
        }
    }

    /** The bytes the unsynced writes of a file hold in its journal (see {@code PageCache.boundJournal}). */
    static long unsyncedBytes(FileNode file) {
        long bytes = 0;
        for (FsNodes.Mutation mutation : file.unsynced) {
            if (mutation instanceof FsNodes.Write write) {
                bytes += write.data().length;
            }
        }
        return bytes;
    }

    /**
     * A {@code pread}; {@code fromDevice} false for pages the caller says are cached, which the device's faults do
     * not reach.
     *
     * @return the bytes read (0 at or past the end), or {@code -EBADF}, {@code -EISDIR}, {@code -EINVAL} or
     *         {@code -EIO} (injected)
     */
    int read(Handle handle, long offset, MemorySegment destination, int length, boolean fromDevice) {
        if (handles.isStale(handle) || !handle.readable) {
            return -Errno.EBADF;
        }
        if (!(handle.node instanceof FileNode file)) {
            return -Errno.EISDIR;
        }
        if (offset < 0 || length < 0) {
            return -Errno.EINVAL;
        }
        if (fromDevice && faults.readFails()) {
            return -Errno.EIO;
        }
        int read = file.live.read(offset, destination, length);
        if (fromDevice) {
            faults.corruptRead(destination, read);
        }
        return read;
    }

    /**
     * A {@code pwrite}: cut short at {@link ByteImage#MAX_SIZE} as Linux cuts a write crossing the largest file
     * size, then as {@link PageCache#write} does.
     *
     * @return the bytes written, or {@code -EBADF}, {@code -EISDIR}, {@code -EINVAL}, {@code -EFBIG},
     *         {@code -ENOSPC} or {@code -EIO}
     */
    int write(Handle handle, long offset, byte[] source, int sourceOffset, int length, boolean durable,
            boolean owned) {
        if (handles.isStale(handle) || !handle.writable) {
            return -Errno.EBADF;
        }
        if (!(handle.node instanceof FileNode file)) {
            return -Errno.EISDIR;
        }
        if (offset < 0 || length < 0) {
            return -Errno.EINVAL;
        }
        if (length > 0 && offset >= ByteImage.MAX_SIZE) {
            return -Errno.EFBIG;
        }
        if (offset + length > ByteImage.MAX_SIZE) {
            length = (int) (ByteImage.MAX_SIZE - offset);
        }
        StorageFaults config = faults.config();
        long before = file.live.size();
        int result = PageCache.write(file, offset, source, sourceOffset, length, durable, config,
                config.capacityBytes() - usedBytes, generator, owned);
        usedBytes += file.live.size() - before;
        return result;
    }

    /**
     * An {@code ftruncate} of a handle checked open and its fault rolled.
     *
     * @throws KernelException {@code EISDIR}, {@code EINVAL}, {@code EFBIG}, {@code ENOSPC}
     */
    void truncate(Handle handle, long length) {
        if (!(handle.node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "truncate", handle.path);
        }
        if (length < 0 || !handle.writable) {
            throw new KernelException(Errno.EINVAL, "truncate", handle.path);
        }
        if (length > ByteImage.MAX_SIZE) {
            throw new KernelException(Errno.EFBIG, "truncate", handle.path);
        }
        resize(file, length, "truncate", handle.path);
    }

    /**
     * An {@code fallocate} (mode 0) of a handle checked open and its fault rolled: extends the file to
     * {@code offset + length} if it is shorter.
     *
     * @throws KernelException {@code EBADF} (read-only), {@code EISDIR}, {@code EINVAL}, {@code EFBIG},
     *                         {@code ENOSPC}
     */
    void allocate(Handle handle, long offset, long length) {
        if (!handle.writable) {
            throw new KernelException(Errno.EBADF, "fallocate", handle.path);
        }
        if (!(handle.node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "fallocate", handle.path);
        }
        if (offset < 0 || length <= 0) {
            throw new KernelException(Errno.EINVAL, "fallocate", handle.path);
        }
        if (offset > ByteImage.MAX_SIZE - length) {
            throw new KernelException(Errno.EFBIG, "fallocate", handle.path);
        }
        if (offset + length > file.live.size()) {
            resize(file, offset + length, "fallocate", handle.path);
        }
    }

    /**
     * Sets a file's size, cutting it or extending it with zeros; journaled like a write, so durable once the file
     * is synced.
     *
     * @throws KernelException {@code ENOSPC} naming the call and path if the growth does not fit; nothing changed
     */
    private void resize(FileNode file, long size, String call, String path) {
        long growth = size - file.live.size();
        if (growth > 0 && growth > faults.config().capacityBytes() - usedBytes) {
            throw new KernelException(Errno.ENOSPC, call, path);
        }
        file.live.resize(size);
        file.unsynced.add(new Resize(size));
        usedBytes += growth;
    }

    /**
     * An {@code fsync} or {@code fdatasync} of a handle's node (both the same here: the simulator has no metadata
     * besides the size, and {@code fdatasync} must persist the size too).
     *
     * @return 0, or {@code -EBADF} (closed or stale) or {@code -EIO} (injected)
     */
    int sync(Handle handle) {
        if (handles.isStale(handle)) {
            return -Errno.EBADF;
        }
        Node node = handle.node;
        if (faults.syncFails()) {
            if (node instanceof FileNode file && faults.config().syncFailure() == SyncFailureModel.LINUX) {
                PageCache.dropJournal(file, generator);
            }
            return -Errno.EIO;
        }
        switch (node) {
            case DirectoryNode directory -> directory.makeEntriesDurable();
            case FileNode file -> PageCache.applyJournal(file);
        }
        return 0;
    }

    /**
     * {@code syncfs} of the tree under {@code root}: every file's journal and every directory's entries, as a
     * journaling file system commits its metadata with the data. A failure drops every file's journal under
     * {@link SyncFailureModel#LINUX}.
     *
     * @return 0, or {@code -EIO} (injected)
     */
    int syncAll(DirectoryNode root) {
        if (faults.syncFails()) {
            if (faults.config().syncFailure() == SyncFailureModel.LINUX) {
                PageCache.dropTree(root, generator);
            }
            return -Errno.EIO;
        }
        PageCache.syncTree(root);
        return 0;
    }
}
