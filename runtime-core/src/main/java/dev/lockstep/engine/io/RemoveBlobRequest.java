package dev.lockstep.engine.io;

import dev.lockstep.BlobMissingException;
import dev.lockstep.PartitionMissingException;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.util.Set;

/**
 * {@code Storage.remove} of one blob as ring operations ({@link PathChain}): open the partition's directory (a
 * missing one is {@link PartitionMissingException}), unlink the blob's file (a missing one is
 * {@link BlobMissingException}), then sync the directory, so a completed remove is durable.
 */
final class RemoveBlobRequest extends PathChain {
    private enum Step { OPEN_PARTITION, UNLINK, SYNC_PARTITION }

    private final String partition;
    private final String partitionPath;
    private final String blobPath;
    private final String blobName;
    private final Set<String> notDurable;
    private Step step = Step.OPEN_PARTITION;

    RemoveBlobRequest(MetadataLane lane, String description, SystemCalls system, String partition,
                      String partitionPath, String blobPath, String blobName, Set<String> notDurable) {
        super(lane, description, system);
        this.partition = partition;
        this.partitionPath = partitionPath;
        this.blobPath = blobPath;
        this.blobName = blobName;
        this.notDurable = notDurable;
    }

    @Override
    void prepareStep(Submission submission, Ring ring) {
        switch (step) {
            case OPEN_PARTITION -> openDirectory(submission, ring, partitionPath);
            case UNLINK -> unlinkAt(submission, ring, blobPath, 0);
            case SYNC_PARTITION -> syncDirectory(submission);
        }
    }

    @Override
    boolean completeStep(int result) {
        switch (step) {
            case OPEN_PARTITION -> {
                if (completeOpenPartition(result, partition, partitionPath)) {
                    return true;
                }
                step = Step.UNLINK;
                return false;
            }
            case UNLINK -> {
                if (result == -Errno.ENOENT) {
                    return fail(new BlobMissingException("blob '" + blobName + "' does not exist"));
                }
                if (result < 0) {
                    throw failed(result, "unlink", blobPath);
                }
                // Gone: whether its creation was ever made durable no longer matters.
                notDurable.remove(blobPath);
                step = Step.SYNC_PARTITION;
                return false;
            }
            case SYNC_PARTITION -> {
                completeDirectorySync(result, partitionPath);
                return succeed(null);
            }
        }
        throw new IllegalStateException("step " + step);
    }
}
