package dev.lockstep.engine.io;

import dev.lockstep.BlobMissingException;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Operation;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.PartitionNameInvalidException;
import dev.lockstep.StorageException;
import dev.lockstep.StorageFullException;
import dev.lockstep.StorageHeldException;
import dev.lockstep.StorageIoException;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.SystemCalls;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.regex.Pattern;

/**
 * {@code Storage} over the kernel SPI, shared by both runtimes: partitions are directories under the root,
 * blobs are files named by the hex of their name. Creation and removal fsync the parent directory, so a
 * completed open or remove is durable; a rename does not ({@code renameat} alone), and is durable once the
 * partition's directory is synced ({@code syncPartition}). Reads, writes, syncs and resizes are ring requests.
 *
 * <h2>Metadata: through the ring, ordered per partition</h2>
 * {@code open}, {@code rename}, {@code syncPartition} and the removal of a blob are {@link PathChain}s: their calls
 * (open or create the file, create the partition's directory, {@code statx}, {@code fsync} of the file and of its
 * directory, unlink, rename) are ring operations ({@code OPENAT}, {@code MKDIRAT}, {@code STATX}, {@code FSYNC},
 * {@code UNLINKAT}, {@code RENAMEAT}) submitted one after
 * the other, so the worker never makes them itself and a slow directory {@code fsync} delays neither its timers
 * nor its other requests. {@code scan} and the removal of a whole partition must list a directory, which no ring
 * opcode does, so each is one {@link MetadataRequest}: a {@code BLOCKING_CALL} that runs off the worker
 * (runtime-uring: an offload thread; the simulator: with the calls' latency charged to the request, not to the
 * worker). Requests on one partition run one at a time, in admission order, whatever worker admitted them: each
 * waits in its partition's {@link MetadataLane} and holds it until its last step. Partitions do not wait for
 * each other, and nothing here takes a lock: the lanes and {@link #notDurable} are lock-free structures, and each
 * partition's entries of {@link #notDurable} are touched only by the request at the head of that partition's
 * lane, so they never race.
 */
public final class EngineStorage {
    private static final Pattern PARTITION = Pattern.compile("[A-Za-z0-9_-]+");
    /** Longest partition name: it is a directory name, and Linux allows 255 bytes. */
    static final int MAX_PARTITION_LENGTH = 255;
    /** Longest blob name: files are named by the name's hex, two characters a byte, within 255. */
    static final int MAX_NAME_LENGTH = 127;
    static final String HOLD_FILE = ".lockstep-hold";

    private final Engine engine;
    private final SystemCalls system;
    private final String root;
    /**
     * One lane per partition used so far: metadata of one partition runs in admission order, partitions side by
     * side. Lock-free ({@code computeIfAbsent} of a skip list map never blocks), so it may be used anywhere.
     * Lanes are kept for the life of the runtime: one small object per partition name.
     */
    private final ConcurrentSkipListMap<String, MetadataLane> lanes = new ConcurrentSkipListMap<>();
    /**
     * Partitions and blobs this runtime created whose parent directory's fsync has not succeeded yet. A failed
     * fsync leaves the entry here, so the next open retries it instead of finding the entry and trusting it.
     * The entries of partition {@code p} (the path of {@code p} and of its blobs) are read and written only by
     * the metadata request at the head of {@code p}'s lane; the set is lock-free so partitions share it.
     */
    private final ConcurrentSkipListSet<String> notDurable = new ConcurrentSkipListSet<>();

    public EngineStorage(Engine engine, SystemCalls system, String root) {
        this.engine = engine;
        this.system = system;
        this.root = root;
    }

    static void validatePartition(String partition) {
        if (partition == null || !PARTITION.matcher(partition).matches()) {
            throw new PartitionNameInvalidException("partition name must be non-empty [A-Za-z0-9_-], was '"
                    + partition + "'");
        }
        if (partition.length() > MAX_PARTITION_LENGTH) {
            throw new PartitionNameInvalidException("partition name must be at most " + MAX_PARTITION_LENGTH
                    + " characters, was " + partition.length() + " ('" + partition.substring(0, 16) + "...')");
        }
    }

    private static void validateName(byte[] name) {
        if (name == null || name.length == 0) {
            throw new IllegalArgumentException("blob name must be non-empty, was "
                    + (name == null ? "null" : "empty"));
        }
        if (name.length > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("blob name must be at most " + MAX_NAME_LENGTH + " bytes, was "
                    + name.length + " bytes");
        }
    }

    /**
     * How messages name a blob: {@code partition/name} with the name as text when it is printable UTF-8 (what
     * the user passed to {@code open(partition, String)}), else {@code partition/0x} and its bytes in hex. The
     * file on disk is always named in hex ({@link #blobPath}); that is an internal, never shown.
     */
    static String describe(String partition, byte[] name) {
        java.nio.charset.CharsetDecoder decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder();
        try {
            String text = decoder.decode(java.nio.ByteBuffer.wrap(name)).toString();
            if (text.codePoints().noneMatch(c -> Character.isISOControl(c) || c == '\'' || Character.getType(c)
                    == Character.UNASSIGNED)) {
                return partition + "/" + text;
            }
        } catch (java.nio.charset.CharacterCodingException notText) {
            // Binary: shown in hex below.
        }
        return partition + "/0x" + HexFormat.of().formatHex(name);
    }

    private String partitionPath(String partition) {
        return root + "/" + partition;
    }

    private String blobPath(String partition, byte[] name) {
        return partitionPath(partition) + "/" + HexFormat.of().formatHex(name);
    }

    static StorageException translate(KernelException failure, String what) {
        if (failure.errno() == Errno.ENOSPC) {
            return new StorageFullException(what + ": device full (" + failure.getMessage() + ")", failure);
        }
        return new StorageIoException(what + ": " + failure.getMessage(), failure);
    }

    /**
     * Takes the storage hold: the root is created if missing, must be a writable directory, and is locked for
     * this runtime. Everything already in it is synced, so data readable when user code starts is durable.
     *
     * @return the fd holding the lock; close it to release the hold
     */
    public int acquireHold() {
        try {
            if (!system.isDirectory(root)) {
                // Every missing ancestor too, as the simulator creates them: "created if missing".
                int slash = root.indexOf('/', 1);
                while (slash > 0) {
                    String ancestor = root.substring(0, slash);
                    if (!system.isDirectory(ancestor)) {
                        system.mkdir(ancestor);
                    }
                    slash = root.indexOf('/', slash + 1);
                }
                system.mkdir(root);
            }
        } catch (KernelException failure) {
            throw new StorageIoException("storage root '" + root + "' is not a usable directory: "
                    + failure.getMessage(), failure);
        }
        int lock;
        try {
            lock = system.lock(root + "/" + HOLD_FILE);
        } catch (KernelException failure) {
            if (failure.errno() == Errno.EWOULDBLOCK) {
                throw new StorageHeldException("storage root '" + root + "' is held by another runtime", failure);
            }
            throw new StorageIoException("storage root '" + root + "' cannot be locked: " + failure.getMessage(),
                    failure);
        }
        try {
            system.syncFileSystem(lock);
        } catch (KernelException failure) {
            system.close(lock);
            throw translate(failure, "syncing storage root '" + root + "'");
        }
        return lock;
    }

    private void fsyncDirectory(String path) {
        int fd = system.open(path, SystemCalls.O_DIRECTORY);
        try {
            system.fsync(fd);
        } finally {
            system.close(fd);
        }
    }

    public Operation<OpenedBlob> open(String partition, byte[] name, OpenOptions options) {
        validatePartition(partition);
        validateName(name);
        java.util.Objects.requireNonNull(options, "options");
        byte[] key = name.clone();
        String shown = describe(partition, key);
        String what = "open of blob '" + shown + "'";
        Worker worker = Worker.requireCurrent("Storage.open");
        return worker.register(new OpenBlobRequest(lane(partition), what, system, root, partition,
                partitionPath(partition), blobPath(partition, key), shown, options, notDurable,
                (fd, length, created, alignment) -> {
                    SharedFd shared = new SharedFd(fd, system, shown);
                    // An existing file may hold bytes an earlier open wrote and never synced (its sync failed,
                    // say): its first sync must reach the kernel. A file this open created has nothing to sync.
                    return new OpenedBlob(new EngineBlob(engine, shared, shown, length, !created, alignment),
                            length);
                }));
    }

    private MetadataLane lane(String partition) {
        return lanes.computeIfAbsent(partition, MetadataLane::new);
    }

    public Operation<Void> remove(String partition, byte[] name) {
        validatePartition(partition);
        byte[] key = name == null ? null : name.clone();
        if (key != null) {
            validateName(key);
        }
        String what = key == null ? "remove of partition '" + partition + "'"
                : "remove of blob '" + describe(partition, key) + "'";
        Worker worker = Worker.requireCurrent("Storage.remove");
        if (key != null) {
            return worker.register(new RemoveBlobRequest(lane(partition), what, system, partition,
                    partitionPath(partition), blobPath(partition, key), describe(partition, key), notDurable));
        }
        // A partition: its entries are listed first, and no ring has an opcode for that (no getdents), so the
        // whole removal is one blocking call off the worker.
        return worker.register(new MetadataRequest(lane(partition), what, () -> {
            try {
                String path = partitionPath(partition);
                if (!system.isDirectory(path)) {
                    throw new PartitionMissingException("partition '" + partition + "' does not exist");
                }
                // '0' follows '/' in ASCII: the subset is every path inside the partition.
                notDurable.subSet(path + "/", path + "0").clear();
                notDurable.remove(path);
                for (String entry : system.list(path)) {
                    system.unlink(path + "/" + entry);
                }
                system.rmdir(path);
                fsyncDirectory(root);
                return null;
            } catch (KernelException failure) {
                throw translate(failure, what);
            }
        }, null, null));
    }

    public Operation<Void> rename(String partition, byte[] from, byte[] to) {
        validatePartition(partition);
        validateName(from);
        validateName(to);
        byte[] fromKey = from.clone();
        byte[] toKey = to.clone();
        String what = "rename of blob '" + describe(partition, fromKey) + "' to '" + describe(partition, toKey) + "'";
        Worker worker = Worker.requireCurrent("Storage.rename");
        return worker.register(new RenameBlobRequest(lane(partition), what, system, partition,
                partitionPath(partition), blobPath(partition, fromKey), blobPath(partition, toKey),
                describe(partition, fromKey), notDurable));
    }

    public Operation<Void> syncPartition(String partition) {
        validatePartition(partition);
        String what = "sync of partition '" + partition + "'";
        Worker worker = Worker.requireCurrent("Storage.syncPartition");
        return worker.register(new SyncPartitionRequest(lane(partition), what, system, partition, root,
                partitionPath(partition), notDurable));
    }

    public Operation<List<byte[]>> scan(String partition) {
        validatePartition(partition);
        String what = "scan of partition '" + partition + "'";
        Worker worker = Worker.requireCurrent("Storage.scan");
        return worker.register(new MetadataRequest(lane(partition), what, () -> {
            try {
                String path = partitionPath(partition);
                if (!system.isDirectory(path)) {
                    throw new PartitionMissingException("partition '" + partition + "' does not exist");
                }
                List<byte[]> names = new ArrayList<>();
                for (String entry : system.list(path)) {
                    try {
                        names.add(HexFormat.of().parseHex(entry));
                    } catch (IllegalArgumentException foreign) {
                        // Not a blob of ours (an editor's backup, say): not part of the partition.
                    }
                }
                names.sort(Arrays::compareUnsigned);
                return names;
            } catch (KernelException failure) {
                throw translate(failure, what);
            }
        }, null, null));
    }
}
