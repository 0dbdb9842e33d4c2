package dev.lockstep.sim;

import dev.lockstep.sim.os.SimFileSystem;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a {@link SimFileSystem#crash} decided: for every file that survived (reachable through durable directory
 * entries), the fate of each of its unsynced mutations, in issue order. It lets a test or a user check a
 * recovered file against the {@link CrashPolicy} without trusting the simulator's arithmetic, and explains a
 * surprising recovery in a failure report.
 *
 * @param policy the policy applied
 * @param files per surviving file path, in path order, its mutations since its last successful sync
 */
public record CrashReport(CrashPolicy policy, SortedMap<String, List<MutationOutcome>> files) {

    /**
     * Makes the report immutable.
     */
    public CrashReport {
        TreeMap<String, List<MutationOutcome>> copy = new TreeMap<>();
        files.forEach((path, outcomes) -> copy.put(path, List.copyOf(outcomes)));
        files = Collections.unmodifiableSortedMap(copy);
    }

    /** The kind of an unsynced mutation. */
    public enum Kind {
        /** A write: {@code offset} and {@code length} are its range. */
        WRITE,
        /** A truncate: {@code offset} is the new size, {@code length} is 0. */
        RESIZE
    }

    /**
     * A byte range of a file.
     *
     * @param offset the first byte
     * @param length the number of bytes
     */
    public record Range(long offset, long length) {
        /**
         * The end of the range.
         *
         * @return {@code offset + length}
         */
        public long end() {
            return offset + length;
        }
    }

    /**
     * The fate of one unsynced mutation.
     *
     * @param kind write or resize
     * @param offset the write's offset, or the resize's new size
     * @param length the write's length; 0 for a resize
     * @param durable whether it was a {@code RWF_DSYNC} write, which always survives
     * @param survived the ranges of a write that reached the disk (all of it, a torn part of it at 512-byte
     *                 sector boundaries, or none); for a resize, one empty range at the new size if it survived
     */
    public record MutationOutcome(Kind kind, long offset, long length, boolean durable, List<Range> survived) {
        /**
         * Makes the ranges immutable.
         */
        public MutationOutcome {
            survived = List.copyOf(survived);
        }

        /**
         * Whether any of it reached the disk.
         *
         * @return true if a resize survived or any byte of a write did
         */
        public boolean anySurvived() {
            return !survived.isEmpty();
        }

        /**
         * Whether all of it reached the disk.
         *
         * @return true if a resize survived or every byte of a write did
         */
        public boolean wholeSurvived() {
            if (kind == Kind.RESIZE) {
                return !survived.isEmpty();
            }
            return survived.stream().mapToLong(Range::length).sum() == length;
        }
    }
}
