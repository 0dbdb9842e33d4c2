package dev.lockstep.sim.os;

import static dev.lockstep.sim.os.FsNodes.components;
import static dev.lockstep.sim.os.FsNodes.normalized;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;
import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.CrashReport;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.StorageImage;
import dev.lockstep.sim.SyncFailureModel;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.FsNodes.DirectoryNode;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Node;
import dev.lockstep.sim.os.FsNodes.Resize;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An in-memory file system with a page cache and a disk: what reads see, and what survives a crash.
 *
 * <h2>Model</h2>
 * <ul>
 *   <li>Every file has a <em>live</em> image (the page cache: what reads see) and a <em>durable</em> image (the
 *       disk), plus the journal of mutations (writes, truncates) issued since its last sync, in order: what is
 *       still to sync. Until a sync fails, the live image is the durable image with the whole journal applied.</li>
 *   <li>A successful {@code fsync} or {@code fdatasync} of a file applies its journal to the durable image and
 *       empties it. Both flavours behave the same here: the simulator has no metadata besides the size, and
 *       {@code fdatasync} must persist the size too. A write with {@code durable = true} ({@code RWF_DSYNC}) is
 *       durable on success, but it does not make earlier writes durable.</li>
 *   <li>A failed sync (an injected {@code EIO}) follows the {@link StorageFaults#syncFailure()} model. Under
 *       {@link SyncFailureModel#LINUX} the journal is emptied as if written back, each mutation reaching the
 *       durable image or not by seed, while the live image keeps every byte: from then on reads may see bytes
 *       no sync will ever make durable, as on Linux. Under {@link SyncFailureModel#OPTIMISTIC} nothing changes.</li>
 *   <li>Every directory has live and durable entries. Creating, removing or renaming an entry (open with
 *       {@code O_CREAT}, {@code mkdir}, {@code unlink}, {@code rmdir}, {@code rename}) changes only the live
 *       entries; an
 *       {@code fsync} of that directory makes all its live entries durable. A change not made durable may be
 *       lost by a crash: a file whose entry is not durable may disappear even if its data was synced, an
 *       unlinked file whose removal is not durable may come back (always under {@link CrashPolicy#ALL_LOST};
 *       by seed, name by name, under the others, as ext4's journal may commit the change without any
 *       directory {@code fsync}).</li>
 *   <li>{@link #crash} rebuilds the live state from the durable state: it walks the durable entries from the
 *       root and gives each surviving file its durable image plus what the {@link CrashPolicy} keeps of its
 *       journal. Open handles from before a crash are stale: every call on them fails {@code EBADF}.</li>
 * </ul>
 *
 * <h2>Faults and capacity</h2>
 * Each call of a faulted kind rolls its rate from {@link StorageFaults} once, before anything else, at the
 * matching {@link Site}. The capacity bounds the sum of the sizes of all files that are linked or still open.
 *
 * <h2>Errors</h2>
 * Namespace calls (open, mkdir, unlink, rename, rmdir, list, truncate) throw {@link KernelException}; the data calls
 * the ring makes ({@link #read}, {@link #write}, {@link #sync}) return a byte count or a negative errno, as a
 * completion does.
 *
 * <p>Paths are absolute, {@code /}-separated; a relative path is resolved from the root (the simulator has no
 * working directory), empty and {@code .} components are ignored and {@code ..} goes up. There are no links.
 * Not thread-safe: the simulator uses it from its one thread.
 *
 * <h2>Layout</h2>
 * This class is the system-call surface: power, fault rolls, capacity, handles and epochs, one method per call
 * with its Linux errors documented. The model underneath lives beside it, one seam per class: {@link FsNamespace}
 * (the tree of live and durable entries and the namespace calls on it) over {@link FsNodes} (the node types and
 * path resolution), {@link PageCache} (what a write puts in the page cache, what syncs and failed syncs do to it
 * and to the durable image, and the sector model of a disk) and {@link CrashRecovery} (what a crash leaves).
 *
 * <p>Over 600 lines (about 690): one method per system call with its Linux errors spelled out in its javadoc;
 * the model underneath is already split out as the section above says.
 */
public final class SimFileSystem {

    /** The sector size: a torn write loses or keeps whole sectors, aligned to multiples of this. */
    public static final int SECTOR_BYTES = 512;

    private static final int ACCESS_MODE_MASK = 3;
    private static final int O_WRONLY = 1;

    private final Generator generator;
    private final Auditor auditor;
    private StorageFaults faults;
    private final FsNamespace namespace = new FsNamespace();
    /** The sum of the live sizes of every file that is linked or open: what the capacity bounds. */
    private long usedBytes;
    /** Incremented by each crash; handles from an older epoch are stale. */
    private long epoch;
    private long openHandles;
    private boolean poweredOff;

    /**
     * An empty file system: only the root directory, which is durable.
     *
     * @param generator the seeded source for fault rolls and crash decisions
     * @param auditor records crashes (calls are recorded by the kernel that makes them)
     * @param faults the fault configuration
     */
    public SimFileSystem(Generator generator, Auditor auditor, StorageFaults faults) {
        this.generator = Objects.requireNonNull(generator, "generator");
        this.auditor = Objects.requireNonNull(auditor, "auditor");
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /**
     * A file system holding a durable image: what a disk holds after a crash, as the next run finds it. Every
     * directory and file of the image exists, durably.
     *
     * @param generator the seeded source for fault rolls and crash decisions
     * @param auditor records crashes
     * @param faults the fault configuration
     * @param image the durable contents
     */
    public SimFileSystem(Generator generator, Auditor auditor, StorageFaults faults, StorageImage image) {
        this(generator, auditor, faults);
        usedBytes = namespace.restore(image);
    }

    /**
     * The durable contents: every directory and file reachable through durable directory entries, each file
     * with its durable bytes (what {@link CrashPolicy#ALL_LOST} would leave). Right after {@link #crash} this is
     * exactly the recovered state.
     *
     * @return the image
     */
    public StorageImage durableImage() {
        return namespace.durableImage();
    }

    /**
     * Cuts the power for good: from now on every call fails {@code EIO} (data calls return {@code -EIO}),
     * without drawing from the generator. What a crashed runtime's remaining tasks see while they unwind: nothing
     * they do reaches the disk the next run starts from.
     */
    public void powerOff() {
        if (!poweredOff) {
            poweredOff = true;
            auditor.record("fs.powerOff", Auditor.u64(epoch));
        }
    }

    /**
     * Whether {@link #powerOff()} was called.
     *
     * @return true once powered off
     */
    public boolean isPoweredOff() {
        return poweredOff;
    }

    private void checkPower(String call, String subject) {
        if (poweredOff) {
            throw new KernelException(Errno.EIO, call, subject);
        }
    }

    /**
     * The current fault configuration.
     *
     * @return the configuration
     */
    public StorageFaults faults() {
        return faults;
    }

    /**
     * Replaces the fault configuration; effective from the next call.
     *
     * @param faults the new configuration
     */
    public void setFaults(StorageFaults faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /**
     * The bytes the capacity currently accounts for.
     *
     * @return the sum of the sizes of every linked or open file
     */
    public long usedBytes() {
        return usedBytes;
    }

    /**
     * The number of handles opened and not yet closed in the current epoch.
     *
     * @return the count
     */
    public long openHandles() {
        return openHandles;
    }

    // ---------------------------------------------------------------------------------------------- handles

    /**
     * An open file or directory: the simulator's open file description. The kernel maps fds to handles.
     * Obtained from {@link #open}; released with {@link #close}.
     */
    public static final class Handle {
        private final Node node;
        private final String path;
        private final long epoch;
        private final boolean readable;
        private final boolean writable;
        private boolean closed;

        private Handle(Node node, String path, long epoch, boolean readable, boolean writable) {
            this.node = node;
            this.path = path;
            this.epoch = epoch;
            this.readable = readable;
            this.writable = writable;
        }

        /**
         * The path the handle was opened with, normalized.
         *
         * @return the path
         */
        public String path() {
            return path;
        }

        /**
         * Whether the handle is a directory's.
         *
         * @return true for a directory
         */
        public boolean isDirectory() {
            return node instanceof DirectoryNode;
        }

        /**
         * Whether {@link SimFileSystem#close} was called on it.
         *
         * @return true once closed
         */
        public boolean isClosed() {
            return closed;
        }

        @Override
        public String toString() {
            return "Handle(" + path + (closed ? ", closed" : "") + ")";
        }
    }

    // ------------------------------------------------------------------------------------------------ paths

    private Node lookup(List<String> parts, String call, String path) {
        return namespace.lookup(parts, call, path);
    }

    private void fault(Site site, double rate, String call, String subject) {
        if (generator.chance(site, rate)) {
            throw new KernelException(Errno.EIO, call, subject);
        }
    }

    /**
     * Rolls {@link StorageFaults#metadataFullRate()} for a call that adds a directory entry: {@code ENOSPC}, before
     * the call has any effect. Draws nothing while the rate is 0, so runs without it keep their digests.
     */
    private void metadataFull(String call, String subject) {
        if (faults.metadataFullRate() > 0 && generator.chance(Site.FAULT_METADATA_FULL, faults.metadataFullRate())) {
            throw new KernelException(Errno.ENOSPC, call, subject);
        }
    }

    /** Whether {@code parts} names nothing yet (so an {@code O_CREAT} open would add an entry). Draws nothing. */
    private boolean isMissing(List<String> parts, String path) {
        try {
            lookup(parts, "open", path);
            return false;
        } catch (KernelException e) {
            return e.errno() == Errno.ENOENT;
        }
    }

    // -------------------------------------------------------------------------------------- namespace calls

    /**
     * Opens a file or directory ({@code open(2)} with {@code O_CLOEXEC}).
     *
     * <p>Access: {@link SystemCalls#O_RDWR} allows writes; without it the handle is read-only and writes fail
     * {@code EBADF}. {@link SystemCalls#O_CREAT} creates a missing file (its directory entry is not durable
     * until the directory is synced), {@link SystemCalls#O_EXCL} with it fails {@code EEXIST} on an existing
     * one, {@link SystemCalls#O_DIRECTORY} requires a directory. {@code O_DIRECT} is accepted and ignored: the
     * simulated page cache is coherent with direct I/O.
     *
     * @param path the path
     * @param flags {@code O_*} flags
     * @return the handle
     * @throws KernelException {@code EIO} (injected), {@code ENOENT}, {@code ENOTDIR}, {@code EISDIR} (a
     *                         directory opened for writing), {@code EEXIST}, {@code EINVAL}
     *                         ({@code O_CREAT | O_DIRECTORY}), {@code ENOSPC} (injected, creating a missing file)
     */
    public Handle open(String path, int flags) {
        checkPower("open", path);
        fault(Site.FAULT_OPEN, faults.openRate(), "open", path);
        List<String> parts = components(path);
        boolean create = (flags & SystemCalls.O_CREAT) != 0;
        boolean exclusive = (flags & SystemCalls.O_EXCL) != 0;
        boolean directoryOnly = (flags & SystemCalls.O_DIRECTORY) != 0;
        boolean writable = (flags & ACCESS_MODE_MASK) != 0;
        boolean readable = (flags & ACCESS_MODE_MASK) != O_WRONLY;
        if (create && directoryOnly) {
            throw new KernelException(Errno.EINVAL, "open", path);
        }
        if (create && faults.metadataFullRate() > 0 && isMissing(parts, path)) {
            metadataFull("open", path);
        }
        Node node = namespace.open(parts, path, create, exclusive, directoryOnly, writable);
        node.opens++;
        openHandles++;
        return new Handle(node, normalized(parts), epoch, readable, writable);
    }

    /**
     * Closes a handle; releases its lock; frees an unlinked file's space once its last handle closes.
     *
     * @param handle the handle
     * @throws KernelException {@code EBADF} if it is closed already or stale after a crash
     */
    public void close(Handle handle) {
        checkOpen(handle, "close");
        handle.closed = true;
        handle.node.opens--;
        openHandles--;
        if (handle.node instanceof FileNode file) {
            if (file.lockOwner == handle) {
                file.lockOwner = null;
            }
            if (!file.counted()) {
                usedBytes -= file.live.size();
            }
        }
    }

    private void checkOpen(Handle handle, String call) {
        if (handle.closed || handle.epoch != epoch) {
            throw new KernelException(Errno.EBADF, call, handle.path);
        }
    }

    private static boolean isStale(Handle handle, long epoch) {
        return handle.closed || handle.epoch != epoch;
    }

    /**
     * Creates a directory, mode 0755. The new entry is durable once its parent is synced; entries inside the
     * new directory once it is synced.
     *
     * @param path the path
     * @throws KernelException {@code EIO} (injected at the open rate: it creates an entry as {@code O_CREAT}
     *                         does), {@code ENOSPC} (injected at the metadata-full rate), {@code EEXIST}, {@code ENOENT}, {@code ENOTDIR}
     */
    public void mkdir(String path) {
        checkPower("mkdir", path);
        fault(Site.FAULT_OPEN, faults.openRate(), "mkdir", path);
        metadataFull("mkdir", path);
        namespace.mkdir(components(path), path);
    }

    /**
     * Removes a file's directory entry. Open handles keep working on the file; its space is freed when the last
     * one closes. The removal is durable once the directory is synced.
     *
     * @param path the path
     * @throws KernelException {@code EIO} (injected), {@code ENOENT}, {@code ENOTDIR}, {@code EISDIR}
     */
    public void unlink(String path) {
        checkPower("unlink", path);
        fault(Site.FAULT_REMOVE, faults.removeRate(), "unlink", path);
        FileNode file = namespace.unlink(components(path), path);
        if (!file.counted()) {
            usedBytes -= file.live.size();
        }
    }

    /**
     * Renames an entry ({@code rename(2)}) within its directory, atomically replacing what the new name held: a
     * replaced file's open handles keep working on it, and its space is freed when the last one closes. The
     * rename is durable once the directory is synced; until then a crash keeps either both names' old entries or
     * both names' new ones (see {@link CrashPolicy}), never a mix: ext4 journals a rename as one change. The
     * moved file's unsynced writes are its own, renamed or not, and meet the crash policy as any file's do.
     * Renaming a name to itself does nothing. Renames across directories are not modelled: the engine never
     * makes one.
     *
     * @param from the existing path
     * @param to the new path, in the same directory
     * @throws KernelException {@code EIO} (injected at the remove rate: it removes the old name), {@code ENOENT},
     *                         {@code ENOTDIR}, {@code EISDIR} (a file over a directory), {@code ENOTEMPTY},
     *                         {@code EBUSY} (the root), {@code EXDEV} (another directory), {@code ENOSPC}
     *                         (injected at the metadata-full rate; the names are left as they were)
     */
    public void rename(String from, String to) {
        String subject = from + " -> " + to;
        checkPower("rename", subject);
        fault(Site.FAULT_REMOVE, faults.removeRate(), "rename", subject);
        metadataFull("rename", subject);
        FileNode replaced = namespace.rename(components(from), components(to), subject);
        if (replaced != null && !replaced.counted()) {
            usedBytes -= replaced.live.size();
        }
    }

    /**
     * Removes an empty directory. The removal is durable once its parent is synced.
     *
     * @param path the path
     * @throws KernelException {@code EIO} (injected), {@code ENOENT}, {@code ENOTDIR}, {@code ENOTEMPTY},
     *                         {@code EBUSY} (the root)
     */
    public void rmdir(String path) {
        checkPower("rmdir", path);
        fault(Site.FAULT_REMOVE, faults.removeRate(), "rmdir", path);
        namespace.rmdir(components(path), path);
    }

    /**
     * The live entries of a directory, sorted, without {@code .} and {@code ..}.
     *
     * @param path the directory
     * @return the names
     * @throws KernelException {@code EIO} (injected), {@code ENOENT}, {@code ENOTDIR}
     */
    public List<String> list(String path) {
        checkPower("list", path);
        fault(Site.FAULT_SCAN, faults.scanRate(), "list", path);
        return namespace.list(components(path), path);
    }

    /**
     * Whether a path exists and is a directory. Never faulted.
     *
     * @param path the path
     * @return true for a directory, false if missing
     * @throws KernelException {@code ENOTDIR} if it, or an ancestor, is a file
     */
    public boolean isDirectory(String path) {
        checkPower("isDirectory", path);
        Node node;
        try {
            node = lookup(components(path), "isDirectory", path);
        } catch (KernelException e) {
            if (e.errno() == Errno.ENOENT) {
                return false;
            }
            throw e;
        }
        if (!(node instanceof DirectoryNode)) {
            throw new KernelException(Errno.ENOTDIR, "isDirectory", path);
        }
        return true;
    }

    /**
     * Whether a path names a live file or directory. Never faulted; for tests and invariant checks.
     *
     * @param path the path
     * @return true if it exists
     */
    public boolean exists(String path) {
        try {
            lookup(components(path), "exists", path);
            return true;
        } catch (KernelException e) {
            return false;
        }
    }

    /**
     * The live contents of a file, as reads see them. Never faulted; for tests and invariant checks.
     *
     * @param path the path
     * @return a copy of the bytes
     * @throws KernelException {@code ENOENT}, {@code ENOTDIR}, {@code EISDIR}
     */
    public byte[] contents(String path) {
        Node node = lookup(components(path), "contents", path);
        if (!(node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "contents", path);
        }
        return file.live.toArray();
    }

    /** The bytes the unsynced writes of a handle's file hold in its journal (see {@code PageCache.boundJournal}). */
    long unsyncedBytes(Handle handle) {
        long bytes = 0;
        if (handle.node instanceof FileNode file) {
            for (FsNodes.Mutation mutation : file.unsynced) {
                if (mutation instanceof FsNodes.Write write) {
                    bytes += write.data().length;
                }
            }
        }
        return bytes;
    }

    /**
     * The size of an open file ({@code fstat}); 0 for a directory.
     *
     * @param handle the handle
     * @return the live size in bytes
     * @throws KernelException {@code EBADF} for a closed or stale handle
     */
    public long size(Handle handle) {
        checkPower("size", handle.path);
        checkOpen(handle, "size");
        return handle.node instanceof FileNode file ? file.live.size() : 0;
    }

    /**
     * Sets the size of an open file ({@code ftruncate}): cuts it, or extends it with zeros. Not durable until
     * the file is synced.
     *
     * @param handle a writable file handle
     * @param length the new size
     * @throws KernelException {@code EIO} (injected), {@code EBADF}, {@code EISDIR}, {@code EINVAL} (negative
     *                         or read-only), {@code EFBIG}, {@code ENOSPC}
     */
    public void truncate(Handle handle, long length) {
        checkPower("truncate", handle.path);
        checkOpen(handle, "truncate");
        fault(Site.FAULT_RESIZE, faults.resizeRate(), "truncate", handle.path);
        if (!(handle.node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "truncate", handle.path);
        }
        if (length < 0 || !handle.writable) {
            throw new KernelException(Errno.EINVAL, "truncate", handle.path);
        }
        if (length > ByteImage.MAX_SIZE) {
            throw new KernelException(Errno.EFBIG, "truncate", handle.path);
        }
        long growth = length - file.live.size();
        if (growth > 0 && growth > faults.capacityBytes() - usedBytes) {
            throw new KernelException(Errno.ENOSPC, "truncate", handle.path);
        }
        file.live.resize(length);
        file.unsynced.add(new Resize(length));
        usedBytes += growth;
    }

    /**
     * Preallocates a range of an open file ({@code fallocate} with mode 0): extends it with zeros to
     * {@code offset + length} if it is shorter, and changes nothing otherwise. The capacity counts a file's size
     * (a hole too), so what needs space is the growth, all of it or nothing: {@code ENOSPC} changes nothing. The
     * new size is a mutation like a truncate's: durable once the file is synced, and until then subject to the
     * crash policy, so a crash may leave the file at its old size. Faulted at the resize rate: it changes the
     * size as {@code ftruncate} does.
     *
     * @param handle a writable file handle
     * @param offset where the range starts
     * @param length its bytes
     * @throws KernelException {@code EIO} (injected), {@code EBADF} (closed, stale or read-only), {@code EISDIR},
     *                         {@code EINVAL} (a negative offset, a length not positive), {@code EFBIG} (past the
     *                         largest file), {@code ENOSPC}
     */
    public void allocate(Handle handle, long offset, long length) {
        checkPower("fallocate", handle.path);
        checkOpen(handle, "fallocate");
        fault(Site.FAULT_RESIZE, faults.resizeRate(), "fallocate", handle.path);
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
        long growth = offset + length - file.live.size();
        if (growth <= 0) {
            return;
        }
        if (growth > faults.capacityBytes() - usedBytes) {
            throw new KernelException(Errno.ENOSPC, "fallocate", handle.path);
        }
        file.live.resize(offset + length);
        file.unsynced.add(new Resize(offset + length));
        usedBytes += growth;
    }

    /**
     * Takes the exclusive lock of a file for a handle ({@code flock(LOCK_EX | LOCK_NB)}): per open file
     * description, released when the handle closes. Never faulted.
     *
     * @param handle the handle
     * @return true if the handle holds the lock now, false if another handle holds it
     * @throws KernelException {@code EBADF} for a closed or stale handle, {@code EISDIR} for a directory
     */
    public boolean tryLock(Handle handle) {
        checkPower("lock", handle.path);
        checkOpen(handle, "lock");
        if (!(handle.node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "lock", handle.path);
        }
        if (file.lockOwner != null && file.lockOwner != handle && !isStale(file.lockOwner, epoch)) {
            return false;
        }
        file.lockOwner = handle;
        return true;
    }

    // ------------------------------------------------------------------------------------------- data calls

    /**
     * Reads from a file ({@code pread}) into memory, from its first byte.
     *
     * @param handle a readable file handle
     * @param offset the file offset, {@code >= 0}
     * @param destination where to copy, at least {@code length} bytes
     * @param length the most bytes to read
     * @return the bytes read (0 at or past the end of the file), or {@code -EBADF}, {@code -EISDIR},
     *         {@code -EINVAL} (negative offset) or {@code -EIO} (injected)
     */
    public int read(Handle handle, long offset, java.lang.foreign.MemorySegment destination, int length) {
        return read(handle, offset, destination, length, true);
    }

    /**
     * {@link #read} of pages the caller says are cached: the same checks, but no injected read fault, which is
     * the device's ({@link StorageFaults#readRate()}).
     */
    int readCached(Handle handle, long offset, java.lang.foreign.MemorySegment destination, int length) {
        return read(handle, offset, destination, length, false);
    }

    private int read(Handle handle, long offset, java.lang.foreign.MemorySegment destination, int length,
            boolean fromDevice) {
        if (poweredOff) {
            return -Errno.EIO;
        }
        if (isStale(handle, epoch) || !handle.readable) {
            return -Errno.EBADF;
        }
        if (!(handle.node instanceof FileNode file)) {
            return -Errno.EISDIR;
        }
        if (offset < 0 || length < 0) {
            return -Errno.EINVAL;
        }
        if (fromDevice && generator.chance(Site.FAULT_READ, faults.readRate())) {
            return -Errno.EIO;
        }
        int read = file.live.read(offset, destination, length);
        if (fromDevice && read > 0 && faults.corruptReadRate() > 0
                && generator.chance(Site.CORRUPT_READ, faults.corruptReadRate())) {
            // The device returned a wrong bit; the file keeps its bytes.
            long bit = generator.nextLong(Site.CORRUPT_READ, 8L * read);
            long at = bit >>> 3;
            byte flipped = (byte) (destination.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) ^ (1 << (bit & 7)));
            destination.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, flipped);
        }
        return read;
    }

    /**
     * An array nobody changes holding exactly the file's live bytes at {@code [offset, offset + length)}, if there
     * is one (a whole page the live image shares with a write's data or with another image: {@link
     * ByteImage#sharedPage}), for the audit of a read that just returned those bytes. Changes nothing and draws
     * nothing.
     *
     * @return the array, or null
     */
    byte[] unchangingBytes(Handle handle, long offset, int length) {
        return handle.node instanceof FileNode file ? file.live.sharedPage(offset, length) : null;
    }

    /**
     * Writes to a file ({@code pwrite}) from an array, extending it (a gap reads as zeros).
     *
     * <p>At capacity the write is cut short honestly: it writes what fits and returns that count, or fails
     * {@code ENOSPC} if nothing fits. As on Linux, a write crossing the largest file size
     * ({@link ByteImage#MAX_SIZE}) is cut short there and one starting at it fails {@code EFBIG}. An injected fault ({@code EIO}) may first have written a seeded, non-empty
     * proper prefix to the page cache ({@link StorageFaults#partialWriteRate()}): a failed write may have
     * changed the file. A successful {@code durable} write ({@code RWF_DSYNC}) survives any crash; a failed or
     * short one makes nothing durable beyond the bytes it reports.
     *
     * @param handle a writable file handle
     * @param offset the file offset, {@code >= 0}
     * @param source the data
     * @param sourceOffset the first byte of the data in {@code source}
     * @param length the number of bytes to write
     * @param durable whether the written bytes must be durable on success ({@code RWF_DSYNC})
     * @return the bytes written, or {@code -EBADF} (read-only, closed or stale), {@code -EISDIR},
     *         {@code -EINVAL}, {@code -EFBIG}, {@code -ENOSPC} or {@code -EIO}
     */
    public int write(Handle handle, long offset, byte[] source, int sourceOffset, int length, boolean durable) {
        return write(handle, offset, source, sourceOffset, length, durable, false);
    }

    /**
     * {@link #write(Handle, long, byte[], int, int, boolean)} of all of {@code data}, an array the caller hands
     * over: nobody changes it from now on, so the page cache and the journal keep it instead of a copy.
     */
    int writeOwned(Handle handle, long offset, byte[] data, boolean durable) {
        return write(handle, offset, data, 0, data.length, durable, true);
    }

    private int write(Handle handle, long offset, byte[] source, int sourceOffset, int length, boolean durable,
            boolean owned) {
        if (poweredOff) {
            return -Errno.EIO;
        }
        if (isStale(handle, epoch) || !handle.writable) {
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
            length = (int) (ByteImage.MAX_SIZE - offset); // Linux cuts a write crossing the limit short
        }
        long before = file.live.size();
        int result = PageCache.write(file, offset, source, sourceOffset, length, durable, faults,
                faults.capacityBytes() - usedBytes, generator, owned);
        usedBytes += file.live.size() - before;
        return result;
    }

    /**
     * {@code fsync} or {@code fdatasync}: of a file, applies its journal to the durable image; of a directory,
     * makes its live entries durable (not its children's contents). An injected failure of a file's sync follows
     * the {@link StorageFaults#syncFailure()} model (see the class doc); of a directory's, it changes nothing.
     *
     * @param handle the handle
     * @param dataOnly whether this is {@code fdatasync}; same effect here (see the class doc)
     * @return 0, or {@code -EBADF} (closed or stale) or {@code -EIO} (injected)
     */
    public int sync(Handle handle, boolean dataOnly) {
        if (poweredOff) {
            return -Errno.EIO;
        }
        if (isStale(handle, epoch)) {
            return -Errno.EBADF;
        }
        if (generator.chance(Site.FAULT_SYNC, faults.syncRate())) {
            if (handle.node instanceof FileNode file && faults.syncFailure() == SyncFailureModel.LINUX) {
                PageCache.dropJournal(file, generator);
            }
            return -Errno.EIO;
        }
        switch (handle.node) {
            case DirectoryNode directory -> directory.makeEntriesDurable();
            case FileNode file -> PageCache.applyJournal(file);
        }
        return 0;
    }

    /**
     * {@code syncfs}: makes the whole live state durable: every file's journal, and every directory's entries.
     * (A journaling file system commits its metadata with the data, so directory entries become durable too.)
     * An injected failure drops every file's journal under {@link SyncFailureModel#LINUX}, and changes nothing
     * under {@link SyncFailureModel#OPTIMISTIC}.
     *
     * @return 0, or {@code -EIO} (injected, at {@link Site#FAULT_SYNC})
     */
    public int syncAll() {
        if (poweredOff) {
            return -Errno.EIO;
        }
        if (generator.chance(Site.FAULT_SYNC, faults.syncRate())) {
            if (faults.syncFailure() == SyncFailureModel.LINUX) {
                PageCache.dropTree(namespace.root(), generator);
            }
            return -Errno.EIO;
        }
        PageCache.syncTree(namespace.root());
        return 0;
    }

    // ------------------------------------------------------------------------------------------------ crash

    /**
     * Simulates a crash and restart: the live state is rebuilt from the durable state, every handle becomes
     * stale (calls on it fail {@code EBADF}) and every lock is released. See {@link CrashPolicy} for what
     * happens to unsynced writes and directory changes. Recorded in the auditor.
     *
     * @param policy what to do with each file's unsynced mutations
     * @return what was decided, per surviving file
     */
    public CrashReport crash(CrashPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        epoch++;
        openHandles = 0;
        TreeMap<String, List<CrashReport.MutationOutcome>> outcomes = new TreeMap<>();
        usedBytes = namespace.crash(policy, generator, outcomes);
        auditor.record("fs.crash", Auditor.utf8(policy.name()), Auditor.u64(epoch), Auditor.u64(usedBytes));
        return new CrashReport(policy, outcomes);
    }

    /**
     * The process using this file system died (a kill, as {@code SIGKILL} does): every handle becomes stale (calls
     * on it fail {@code EBADF}) and every lock is released, but the page cache survives: what was written and not
     * synced is still readable, and still lost if the machine crashes later. Recorded in the auditor.
     */
    public void processDied() {
        epoch++;
        openHandles = 0;
        auditor.record("fs.processDied", Auditor.u64(epoch), Auditor.u64(usedBytes));
    }

    @Override
    public String toString() {
        return "SimFileSystem(used=" + usedBytes + " bytes, epoch=" + epoch + ")";
    }
}
