package dev.lockstep.engine.io;

import dev.lockstep.BlobExistsException;
import dev.lockstep.BlobMissingException;
import dev.lockstep.BlobNotRegularFileException;
import dev.lockstep.OpenOptions;
import dev.lockstep.OpenedBlob;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Statx;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.util.Set;

/**
 * {@code Storage.open} as ring operations ({@link PathChain}). The steps, each skipped when it has nothing to do:
 * <ol>
 *   <li>open the blob's file if it exists;</li>
 *   <li>if it does not: create the partition's directory (it may exist), and sync the storage root if the
 *       partition is new or an earlier sync of the root failed;</li>
 *   <li>create the file;</li>
 *   <li>{@code statx} the fd for its type (anything but a regular file is refused with
 *       {@link BlobNotRegularFileException}), its length (and its direct I/O alignment, for a direct open);</li>
 *   <li>if the file is new or an earlier sync of it failed: sync the file, then its partition's directory.</li>
 * </ol>
 * So a completed open is durable, and an open of an existing blob is two ring operations. A path
 * that failed to become durable stays in the not-durable set, so the next open retries its sync instead of
 * trusting the entry.
 *
 * <p>{@link OpenOptions.Existing#CREATE_NEW} skips step 1 and creates with {@code O_EXCL}: the file system says
 * whether the name was free ({@code EEXIST} is {@link BlobExistsException}). {@link OpenOptions.Existing#OPEN_EXISTING}
 * stops after a step 1 that found nothing: it opens the partition's directory only to say which is missing, the
 * partition ({@link PartitionMissingException}) or the blob ({@link BlobMissingException}).
 *
 * <p>What is not a regular file is refused in one of two places. The open of step 1 or 3 itself fails for a
 * directory ({@code EISDIR}: it is opened for writing) and for a socket or a device with no driver
 * ({@code ENXIO}); nothing is opened. A FIFO or a device with a driver opens, and step 4 refuses it by its type,
 * closing the fd: its driver has seen an open and a close by then. A FIFO opened for reading and writing does
 * not wait for a peer on Linux, so that open does not block the worker; {@code O_NONBLOCK} is not used, as the
 * ring would then answer {@code EAGAIN} to the blob's own buffered reads instead of waiting for the disk.
 */
final class OpenBlobRequest extends PathChain {
    private enum Step {
        OPEN_EXISTING, MAKE_PARTITION, OPEN_ROOT, SYNC_ROOT, CREATE, STATX, SYNC_FILE, OPEN_PARTITION,
        SYNC_PARTITION, CHECK_PARTITION
    }

    /** How a blob's file is opened, with {@code O_CREAT}, {@code O_EXCL} and {@code O_DIRECT} as asked. */
    private static final int BLOB_FLAGS = SystemCalls.O_RDWR;

    /** Builds the engine's blob from the fd, on the worker. */
    interface Wrap {
        OpenedBlob wrap(int fd, long length, boolean created, int alignment);
    }

    private final String root;
    private final String partitionPath;
    private final String blobPath;
    private final int directFlag;
    private final OpenOptions.Existing existing;
    private final String partition;
    private final String blobName;
    private final Set<String> notDurable;
    private final Wrap wrap;
    private Step step;
    private boolean created;
    private long length;
    private int alignment;

    /**
     * @param partition the partition's name, for messages
     * @param blobName the blob as messages name it ({@code partition/name})
     */
    OpenBlobRequest(MetadataLane lane, String description, SystemCalls system, String root, String partition,
                    String partitionPath, String blobPath, String blobName, OpenOptions options,
                    Set<String> notDurable, Wrap wrap) {
        super(lane, description, system);
        this.root = root;
        this.partition = partition;
        this.partitionPath = partitionPath;
        this.blobPath = blobPath;
        this.blobName = blobName;
        this.directFlag = options.direct() ? SystemCalls.O_DIRECT : 0;
        this.existing = options.existing();
        this.step = existing == OpenOptions.Existing.CREATE_NEW ? Step.MAKE_PARTITION : Step.OPEN_EXISTING;
        this.notDurable = notDurable;
        this.wrap = wrap;
    }

    @Override
    void prepareStep(Submission submission, Ring ring) {
        switch (step) {
            case OPEN_EXISTING -> openAt(submission, ring, blobPath, BLOB_FLAGS | directFlag);
            case MAKE_PARTITION -> mkdirAt(submission, ring, partitionPath);
            case OPEN_ROOT -> openDirectory(submission, ring, root);
            case SYNC_ROOT, SYNC_PARTITION -> syncDirectory(submission);
            case CREATE -> openAt(submission, ring, blobPath, BLOB_FLAGS | SystemCalls.O_CREAT | directFlag
                    | (existing == OpenOptions.Existing.CREATE_NEW ? SystemCalls.O_EXCL : 0));
            case STATX -> statx(submission, ring,
                    Statx.TYPE | Statx.SIZE | (directFlag != 0 ? Statx.DIOALIGN : 0));
            case SYNC_FILE -> fsync(submission, ownedFd());
            case OPEN_PARTITION, CHECK_PARTITION -> openDirectory(submission, ring, partitionPath);
        }
    }

    @Override
    boolean completeStep(int result) {
        switch (step) {
            case OPEN_EXISTING -> {
                if (result >= 0) {
                    own(result);
                    return next(notDurable.contains(partitionPath) ? Step.OPEN_ROOT : Step.STATX);
                }
                if (result == -Errno.EISDIR || result == -Errno.ENXIO) {
                    return notRegular(result);
                }
                if (result != -Errno.ENOENT) {
                    throw failed(result, "open", blobPath);
                }
                return next(existing == OpenOptions.Existing.OPEN_EXISTING ? Step.CHECK_PARTITION
                        : Step.MAKE_PARTITION);
            }
            case MAKE_PARTITION -> {
                if (result == 0) {
                    notDurable.add(partitionPath);
                } else if (result != -Errno.EEXIST) {
                    throw failed(result, "mkdir", partitionPath);
                }
                return next(notDurable.contains(partitionPath) ? Step.OPEN_ROOT : Step.CREATE);
            }
            case OPEN_ROOT -> {
                completeOpenDirectory(result, root);
                return next(Step.SYNC_ROOT);
            }
            case SYNC_ROOT -> {
                completeDirectorySync(result, root);
                notDurable.remove(partitionPath);
                return next(ownedFd() >= 0 ? Step.STATX : Step.CREATE);
            }
            case CHECK_PARTITION -> {
                if (completeOpenPartition(result, partition, partitionPath)) {
                    return true;
                }
                // The partition is there, so the blob is what is missing; the directory's fd is closed as this
                // request completes.
                return fail(new BlobMissingException("blob '" + blobName + "' does not exist"));
            }
            case CREATE -> {
                if (result == -Errno.EEXIST && existing == OpenOptions.Existing.CREATE_NEW) {
                    return fail(new BlobExistsException("blob '" + blobName + "' exists"));
                }
                if (result == -Errno.EISDIR || result == -Errno.ENXIO) {
                    return notRegular(result);
                }
                if (result < 0) {
                    throw failed(result, "open", blobPath);
                }
                // Before anything else can fail: until its directory is synced, the new entry is not durable.
                notDurable.add(blobPath);
                own(result);
                created = true;
                return next(Step.STATX);
            }
            case STATX -> {
                if (result < 0) {
                    throw failed(result, "statx", blobPath);
                }
                boolean typed = (statxInt(Statx.MASK_OFFSET) & Statx.TYPE) != 0;
                int mode = Short.toUnsignedInt(statxShort(Statx.MODE_OFFSET));
                if (!typed || (mode & Statx.S_IFMT) != Statx.S_IFREG) {
                    // A FIFO or a device an operator put at the path opens like a file; its first write would fail
                    // (a FIFO: ESPIPE) or its first read wait for a writer. Refused here, the fd closed with the
                    // request, the file left as it was.
                    return notRegular(typed ? Statx.typeName(mode) : "a file whose type the kernel did not report");
                }
                length = statxLong(Statx.SIZE_OFFSET);
                if (directFlag != 0) {
                    boolean answered = (statxInt(Statx.MASK_OFFSET) & Statx.DIOALIGN) != 0;
                    alignment = answered ? Math.max(statxInt(Statx.DIO_MEM_ALIGN_OFFSET),
                            statxInt(Statx.DIO_OFFSET_ALIGN_OFFSET)) : 0;
                    if (alignment <= 0) {
                        throw new KernelException(Errno.EINVAL, "statx STATX_DIOALIGN",
                                "the file system cannot do direct I/O on " + blobPath);
                    }
                }
                return notDurable.contains(blobPath) ? next(Step.SYNC_FILE) : done();
            }
            case SYNC_FILE -> {
                if (result < 0) {
                    throw failed(result, "fsync", blobPath);
                }
                return next(Step.OPEN_PARTITION);
            }
            case OPEN_PARTITION -> {
                completeOpenDirectory(result, partitionPath);
                return next(Step.SYNC_PARTITION);
            }
            case SYNC_PARTITION -> {
                completeDirectorySync(result, partitionPath);
                notDurable.remove(blobPath);
                return done();
            }
        }
        throw new IllegalStateException("step " + step);
    }

    /**
     * Fails with {@link BlobNotRegularFileException} for an open refused by what is at the path: {@code EISDIR}
     * is a directory; {@code ENXIO} is a socket or a device file with no driver ({@code open(2)}; an {@code O_RDWR}
     * open of a FIFO never answers it). Nothing was opened.
     */
    private boolean notRegular(int openResult) {
        return notRegular(openResult == -Errno.EISDIR ? "a directory"
                : "a socket or a device with no driver (open: ENXIO)");
    }

    private boolean notRegular(String found) {
        return fail(new BlobNotRegularFileException("blob '" + blobName + "': '" + blobPath + "' is " + found
                + ", not a regular file"));
    }

    private boolean next(Step following) {
        step = following;
        return false;
    }

    private boolean done() {
        // On the worker: the engine's objects are built here. The fd goes with the blob from now on.
        return succeed(wrap.wrap(handOver(), length, created, alignment));
    }
}
