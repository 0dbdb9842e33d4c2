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
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.FsNodes.DirectoryNode;
import dev.lockstep.sim.os.FsNodes.FileNode;
import dev.lockstep.sim.os.FsNodes.Node;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An in-memory file system with a page cache and a disk: what reads see, and what survives a crash.
 *
 * <h2>Model</h2>
 * Every file has a <em>live</em> image (the page cache: what reads see), a <em>durable</em> image (the disk) and
 * the journal of mutations (writes, size changes) issued since its last sync, in order; until a sync fails, the
 * live image is the durable image with the whole journal applied. A sync makes the journal durable, and a failed
 * one follows {@link StorageFaults#syncFailure()} ({@link FileStore}, {@link PageCache}). Every directory has live
 * and durable entries: creating, removing or renaming an entry changes the live ones, a sync of the directory
 * makes them durable, and a change not made durable may be lost by a crash ({@link FsNamespace}). {@link #crash}
 * rebuilds the live state from the durable state and what the {@link CrashPolicy} keeps of each journal
 * ({@link CrashRecovery}); handles from before it are stale, and every call on them fails {@code EBADF}.
 *
 * <h2>Faults and capacity</h2>
 * Each call of a faulted kind rolls its rate from {@link StorageFaults} once, before anything else, at the
 * matching {@link Site} ({@link FsFaults}). The capacity bounds the sum of the sizes of all files that are linked
 * or still open ({@link FileStore}).
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
 * This class is the system-call surface: power, and one method per call with its Linux errors documented, which
 * checks power and rolls the call's fault before the part that carries it out: {@link FsNamespace} (the tree of
 * live and durable entries) over {@link FsNodes} (the node types and path resolution), {@link OpenHandles} (handles,
 * epochs, locks), {@link FileStore} (the data calls on a handle and the capacity) over {@link PageCache} (the page
 * cache, the journal and the durable image), {@link FsFaults} (the fault rolls) and {@link CrashRecovery} (what a
 * crash leaves).
 */
public final class SimFileSystem {

    /** The sector size: a torn write loses or keeps whole sectors, aligned to multiples of this. */
    public static final int SECTOR_BYTES = 512;

    private static final int ACCESS_MODE_MASK = 3;
    private static final int O_WRONLY = 1;

    private final Generator generator;
    private final Auditor auditor;
    private final FsFaults faults;
    private final FsNamespace namespace = new FsNamespace();
    private final OpenHandles handles = new OpenHandles();
    private final FileStore store;
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
        this.faults = new FsFaults(generator, faults);
        this.store = new FileStore(generator, this.faults, handles);
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
        store.setUsedBytes(namespace.restore(image));
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
            auditor.record("fs.powerOff", Auditor.u64(handles.epoch()));
        }
    }

    /** Whether {@link #powerOff()} was called. */
    public boolean isPoweredOff() {
        return poweredOff;
    }

    private void checkPower(String call, String subject) {
        if (poweredOff) {
            throw new KernelException(Errno.EIO, call, subject);
        }
    }

    /** The current fault configuration. */
    public StorageFaults faults() {
        return faults.config();
    }

    /** Replaces the fault configuration ({@code faults}); effective from the next call. */
    public void setFaults(StorageFaults faults) {
        this.faults.set(faults);
    }

    /** The bytes the capacity currently accounts for: the sum of the sizes of every linked or open file. */
    public long usedBytes() {
        return store.usedBytes();
    }

    /** The number of handles opened and not yet closed in the current epoch. */
    public long openHandles() {
        return handles.openCount();
    }

    // ---------------------------------------------------------------------------------------------- handles

    /**
     * An open file or directory: the simulator's open file description. The kernel maps fds to handles.
     * Obtained from {@link #open}; released with {@link #close}.
     */
    public static final class Handle {
        final Node node;
        final String path;
        final long epoch;
        final boolean readable;
        final boolean writable;
        boolean closed;

        Handle(Node node, String path, long epoch, boolean readable, boolean writable) {
            this.node = node;
            this.path = path;
            this.epoch = epoch;
            this.readable = readable;
            this.writable = writable;
        }

        /** The path the handle was opened with, normalized. */
        public String path() {
            return path;
        }

        /** Whether the handle is a directory's. */
        public boolean isDirectory() {
            return node instanceof DirectoryNode;
        }

        /** Whether {@link SimFileSystem#close} was called on it. */
        public boolean isClosed() {
            return closed;
        }

        @Override
        public String toString() {
            return "Handle(" + path + (closed ? ", closed" : "") + ")";
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
        faults.roll(Site.FAULT_OPEN, faults.config().openRate(), "open", path);
        List<String> parts = components(path);
        boolean create = (flags & SystemCalls.O_CREAT) != 0;
        boolean exclusive = (flags & SystemCalls.O_EXCL) != 0;
        boolean directoryOnly = (flags & SystemCalls.O_DIRECTORY) != 0;
        boolean writable = (flags & ACCESS_MODE_MASK) != 0;
        boolean readable = (flags & ACCESS_MODE_MASK) != O_WRONLY;
        if (create && directoryOnly) {
            throw new KernelException(Errno.EINVAL, "open", path);
        }
        if (create && faults.config().metadataFullRate() > 0 && namespace.find(parts, "open", path) == null) {
            faults.metadataFull("open", path);
        }
        Node node = namespace.open(parts, path, create, exclusive, directoryOnly, writable);
        return handles.open(node, normalized(parts), readable, writable);
    }

    /**
     * Closes a handle; releases its lock; frees an unlinked file's space once its last handle closes.
     *
     * @param handle the handle
     * @throws KernelException {@code EBADF} if it is closed already or stale after a crash
     */
    public void close(Handle handle) {
        handles.close(handle);
        if (handle.node instanceof FileNode file) {
            store.releaseIfUncounted(file);
        }
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
        faults.roll(Site.FAULT_OPEN, faults.config().openRate(), "mkdir", path);
        faults.metadataFull("mkdir", path);
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
        faults.roll(Site.FAULT_REMOVE, faults.config().removeRate(), "unlink", path);
        store.releaseIfUncounted(namespace.unlink(components(path), path));
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
        faults.roll(Site.FAULT_REMOVE, faults.config().removeRate(), "rename", subject);
        faults.metadataFull("rename", subject);
        FileNode replaced = namespace.rename(components(from), components(to), subject);
        if (replaced != null) {
            store.releaseIfUncounted(replaced);
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
        faults.roll(Site.FAULT_REMOVE, faults.config().removeRate(), "rmdir", path);
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
        faults.roll(Site.FAULT_SCAN, faults.config().scanRate(), "list", path);
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
        Node node = namespace.find(components(path), "isDirectory", path);
        if (node == null) {
            return false;
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
            return namespace.find(components(path), "exists", path) != null;
        } catch (KernelException notADirectory) {
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
        Node node = namespace.lookup(components(path), "contents", path);
        if (!(node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "contents", path);
        }
        return file.live.toArray();
    }

    /** The bytes the unsynced writes of a handle's file hold in its journal (see {@code PageCache.boundJournal}). */
    long unsyncedBytes(Handle handle) {
        return handle.node instanceof FileNode file ? FileStore.unsyncedBytes(file) : 0;
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
        handles.checkOpen(handle, "size");
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
        handles.checkOpen(handle, "truncate");
        faults.roll(Site.FAULT_RESIZE, faults.config().resizeRate(), "truncate", handle.path);
        store.truncate(handle, length);
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
        handles.checkOpen(handle, "fallocate");
        faults.roll(Site.FAULT_RESIZE, faults.config().resizeRate(), "fallocate", handle.path);
        store.allocate(handle, offset, length);
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
        handles.checkOpen(handle, "lock");
        if (!(handle.node instanceof FileNode file)) {
            throw new KernelException(Errno.EISDIR, "lock", handle.path);
        }
        return handles.tryLock(handle, file);
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
        return poweredOff ? -Errno.EIO : store.read(handle, offset, destination, length, fromDevice);
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
     * Writes to a file ({@code pwrite}) from an array, extending it (a gap reads as zeros). At capacity, or
     * crossing the largest file size ({@link ByteImage#MAX_SIZE}), it is cut short ({@link FileStore#write}). An
     * injected fault ({@code EIO}) may first have written a seeded, non-empty proper prefix to the page cache
     * ({@link StorageFaults#partialWriteRate()}). A successful {@code durable} write ({@code RWF_DSYNC}) survives any
     * crash; a failed or short one makes nothing durable beyond the bytes it reports.
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
        return poweredOff ? -Errno.EIO : store.write(handle, offset, source, sourceOffset, length, durable, owned);
    }

    /**
     * {@code fsync} or {@code fdatasync}: of a file, applies its journal to the durable image; of a directory,
     * makes its live entries durable. An injected failure follows {@link FileStore#sync}.
     *
     * @param handle the handle
     * @param dataOnly whether this is {@code fdatasync}; same effect here
     * @return 0, or {@code -EBADF} (closed or stale) or {@code -EIO} (injected)
     */
    public int sync(Handle handle, boolean dataOnly) {
        return poweredOff ? -Errno.EIO : store.sync(handle);
    }

    /**
     * {@code syncfs}: makes the whole live state durable, every file's journal and every directory's entries
     * ({@link FileStore#syncAll}).
     *
     * @return 0, or {@code -EIO} (injected, at {@link Site#FAULT_SYNC})
     */
    public int syncAll() {
        if (poweredOff) {
            return -Errno.EIO;
        }
        return store.syncAll(namespace.root());
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
        handles.invalidateAll();
        TreeMap<String, List<CrashReport.MutationOutcome>> outcomes = new TreeMap<>();
        store.setUsedBytes(namespace.crash(policy, generator, outcomes));
        auditor.record("fs.crash", Auditor.utf8(policy.name()), Auditor.u64(handles.epoch()),
                Auditor.u64(store.usedBytes()));
        return new CrashReport(policy, outcomes);
    }

    /**
     * The process using this file system died (a kill, as {@code SIGKILL} does): every handle becomes stale (calls
     * on it fail {@code EBADF}) and every lock is released, but the page cache survives: what was written and not
     * synced is still readable, and still lost if the machine crashes later. Recorded in the auditor.
     */
    public void processDied() {
        handles.invalidateAll();
        auditor.record("fs.processDied", Auditor.u64(handles.epoch()), Auditor.u64(store.usedBytes()));
    }

    @Override
    public String toString() {
        return "SimFileSystem(used=" + store.usedBytes() + " bytes, epoch=" + handles.epoch() + ")";
    }
}
