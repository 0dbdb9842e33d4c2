package dev.lockstep.engine.io;

import dev.lockstep.BlobMissingException;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.util.Set;

/**
 * {@code Storage.rename} as ring operations ({@link PathChain}): one {@code renameat} of the blob's file over the
 * target's. Only when it fails with {@code ENOENT} is the partition's directory opened, to say which is missing:
 * the partition ({@link PartitionMissingException}) or the blob ({@link BlobMissingException}).
 *
 * <p>The rename is not synced: its directory entry is durable once the partition's directory is
 * ({@link SyncPartitionRequest}, or any later open that creates a blob or remove of one). Until then the target
 * is in the not-durable set, so an {@code open} of it syncs the directory before it returns, as its contract
 * says.
 */
final class RenameBlobRequest extends PathChain {
    private enum Step { RENAME, CHECK_PARTITION }

    private final String partition;
    private final String partitionPath;
    private final String fromPath;
    private final String toPath;
    private final String fromName;
    private final Set<String> notDurable;
    private Step step = Step.RENAME;

    RenameBlobRequest(MetadataLane lane, String description, SystemCalls system, String partition,
                      String partitionPath, String fromPath, String toPath, String fromName, Set<String> notDurable) {
        super(lane, description, system);
        this.partition = partition;
        this.partitionPath = partitionPath;
        this.fromPath = fromPath;
        this.toPath = toPath;
        this.fromName = fromName;
        this.notDurable = notDurable;
    }

    @Override
    void prepareStep(Submission submission, Ring ring) {
        switch (step) {
            case RENAME -> renameAt(submission, ring, fromPath, toPath);
            case CHECK_PARTITION -> openDirectory(submission, ring, partitionPath);
        }
    }

    @Override
    boolean completeStep(int result) {
        switch (step) {
            case RENAME -> {
                if (result == -Errno.ENOENT) {
                    step = Step.CHECK_PARTITION;
                    return false;
                }
                if (result < 0) {
                    throw failed(result, "rename", fromPath + " -> " + toPath);
                }
                if (!fromPath.equals(toPath)) {
                    notDurable.remove(fromPath);
                }
                notDurable.add(toPath);
                return succeed(null);
            }
            case CHECK_PARTITION -> {
                if (completeOpenPartition(result, partition, partitionPath)) {
                    return true;
                }
                // The partition is there, so the blob is what is missing; the directory's fd is closed as this
                // request completes.
                return fail(new BlobMissingException("blob '" + fromName + "' does not exist"));
            }
        }
        throw new IllegalStateException("step " + step);
    }
}
