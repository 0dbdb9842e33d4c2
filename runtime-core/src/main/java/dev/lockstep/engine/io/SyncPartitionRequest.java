package dev.lockstep.engine.io;

import dev.lockstep.PartitionMissingException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.util.NavigableSet;

/**
 * {@code Storage.syncPartition} as ring operations ({@link PathChain}): open the partition's directory (a missing
 * one is {@link PartitionMissingException}) and {@code fsync} it; if the partition's own entry in the storage root
 * is not yet durable, the root is synced too. Then every entry of the partition is durable: its blobs leave the
 * not-durable set. A failed sync leaves the set as it was, so later opens still sync what they find.
 */
final class SyncPartitionRequest extends PathChain {
    private enum Step { OPEN_PARTITION, SYNC_PARTITION, OPEN_ROOT, SYNC_ROOT }

    private final String partition;
    private final String root;
    private final String partitionPath;
    private final NavigableSet<String> notDurable;
    private Step step = Step.OPEN_PARTITION;

    SyncPartitionRequest(MetadataLane lane, String description, SystemCalls system, String partition, String root,
                         String partitionPath, NavigableSet<String> notDurable) {
        super(lane, description, system);
        this.partition = partition;
        this.root = root;
        this.partitionPath = partitionPath;
        this.notDurable = notDurable;
    }

    @Override
    void prepareStep(Submission submission, Ring ring) {
        switch (step) {
            case OPEN_PARTITION -> openDirectory(submission, ring, partitionPath);
            case OPEN_ROOT -> openDirectory(submission, ring, root);
            case SYNC_PARTITION, SYNC_ROOT -> syncDirectory(submission);
        }
    }

    @Override
    boolean completeStep(int result) {
        switch (step) {
            case OPEN_PARTITION -> {
                if (completeOpenPartition(result, partition, partitionPath)) {
                    return true;
                }
                step = Step.SYNC_PARTITION;
                return false;
            }
            case SYNC_PARTITION -> {
                completeDirectorySync(result, partitionPath);
                // '0' follows '/' in ASCII: the subset is every blob of the partition.
                notDurable.subSet(partitionPath + "/", partitionPath + "0").clear();
                if (!notDurable.contains(partitionPath)) {
                    return succeed(null);
                }
                step = Step.OPEN_ROOT;
                return false;
            }
            case OPEN_ROOT -> {
                completeOpenDirectory(result, root);
                step = Step.SYNC_ROOT;
                return false;
            }
            case SYNC_ROOT -> {
                completeDirectorySync(result, root);
                notDurable.remove(partitionPath);
                return succeed(null);
            }
        }
        throw new IllegalStateException("step " + step);
    }
}
