package dev.lockstep.sim;

import dev.lockstep.sim.os.SimFileSystem;

/**
 * Storage fault injection for the {@link SimFileSystem}: one failure rate per kind of call, the chance that a
 * failed write left a prefix behind, and the capacity of the simulated disk.
 *
 * <p>Every rate is a probability in {@code [0, 1]}, checked when the value is built: a rate of 0 never fails, a
 * rate of 1 fails every call of that kind. An injected fault fails the call with {@code EIO} before it has any
 * effect, except for writes (see {@link #partialWriteRate}). Which calls each rate covers:
 * <ul>
 *   <li>{@code openRate}: {@code open} (also with {@code O_CREAT}; the file is not created) and {@code mkdir}
 *       (the directory is not created);</li>
 *   <li>{@code readRate}: file reads ({@code READ});</li>
 *   <li>{@code writeRate}: file writes ({@code WRITE});</li>
 *   <li>{@code syncRate}: {@code fsync}/{@code fdatasync} of files and directories, and {@code RWF_DSYNC}
 *       writes (the write reaches the page cache, its writeback fails); what happens to the data is the
 *       {@link #syncFailure()} model: by default Linux's, which drops it from the set still to sync;</li>
 *   <li>{@code resizeRate}: {@code truncate} and {@code fallocate};</li>
 *   <li>{@code removeRate}: {@code unlink}, {@code rmdir} and {@code rename} (which removes the old name; the
 *       names are left as they were);</li>
 *   <li>{@code scanRate}: directory listings;</li>
 *   <li>{@code metadataFullRate}: the calls that add a directory entry — an {@code open} that creates a missing
 *       file, {@code mkdir}, {@code rename} — fail with {@code ENOSPC} instead, as on ext4 out of inodes or of
 *       blocks for a directory, with data space left; nothing is created or renamed. 0 by default and not set by
 *       {@link Builder#allRates}; a rate of 0 draws nothing, so runs without it keep their digests.</li>
 * </ul>
 * {@code syncfs} rolls {@code syncRate}; {@code lock} opens its file and so rolls {@code openRate}. {@code close},
 * {@code size} and {@code isDirectory} are never faulted: on Linux {@code close} and {@code fstat} of a local file
 * and {@code stat} do not fail with {@code EIO}.
 *
 * <h2>Silent corruption</h2>
 * Three rates make the disk lie instead of fail, as real devices and controllers do now and then (a bit rot, a
 * bad cable, a firmware bug): every call they strike succeeds, and only a reader that checks what it reads
 * (a checksum per record or block) can tell. All three are 0 by default; a rate of 0 draws nothing, so runs
 * without them keep their digests.
 * <ul>
 *   <li>{@code corruptReadRate}: a file read from the device returns its bytes with one seeded bit flipped; the
 *       file itself is unchanged, so reading again may return the right bytes. Reads of pages the simulator knows
 *       are cached are not struck.</li>
 *   <li>{@code corruptWriteRate}: a write stores its data with one seeded bit flipped: every later read, and what
 *       a sync makes durable, has the flipped bit (corruption at rest).</li>
 *   <li>{@code misdirectedWriteRate}: a write lands at another seeded, sector-aligned offset of the same file
 *       (possibly past its end, growing it) and reports success: the bytes it meant to replace keep their old
 *       contents, and the bytes where it landed are overwritten.</li>
 * </ul>
 *
 * @param openRate failure rate of {@code open}
 * @param readRate failure rate of file reads
 * @param writeRate failure rate of file writes
 * @param syncRate failure rate of {@code fsync}
 * @param resizeRate failure rate of {@code truncate} and {@code fallocate}
 * @param removeRate failure rate of {@code unlink}, {@code rmdir} and {@code rename}
 * @param scanRate failure rate of directory listings
 * @param partialWriteRate the chance that a write failed by {@code writeRate} first wrote a seeded, non-empty,
 *                         proper prefix of its data to the page cache (unsynced, like any write) before
 *                         returning {@code EIO}: the caller must assume a failed write may have changed the file
 * @param syncFailure what a failed sync does to the data it covered: {@link SyncFailureModel#LINUX} (the
 *                    default) or {@link SyncFailureModel#OPTIMISTIC}
 * @param capacityBytes the disk's size: the sum of all file sizes (every byte up to a file's size counts;
 *                      files are not sparse) may not exceed it. A write that would is cut short at the
 *                      capacity and reports the bytes it wrote, or fails {@code ENOSPC} if none fit; a
 *                      {@code truncate} that would fails {@code ENOSPC}. {@code Long.MAX_VALUE} for unlimited
 * @param corruptReadRate the chance that a file read returns one bit flipped (see "Silent corruption")
 * @param corruptWriteRate the chance that a write stores one bit flipped (see "Silent corruption")
 * @param misdirectedWriteRate the chance that a write lands at another offset (see "Silent corruption")
 * @param metadataFullRate the chance that a call adding a directory entry fails {@code ENOSPC}
 */
public record StorageFaults(double openRate, double readRate, double writeRate, double syncRate,
        double resizeRate, double removeRate, double scanRate, double partialWriteRate, SyncFailureModel syncFailure,
        long capacityBytes, double corruptReadRate, double corruptWriteRate, double misdirectedWriteRate,
        double metadataFullRate) {

    /** No faults and unlimited capacity. */
    public static final StorageFaults NONE = builder().build();

    /**
     * Validates every field.
     *
     * @throws InvalidConfigException naming the field and its value, if a rate is outside {@code [0, 1]} or
     *                                NaN, the sync failure model is null, or the capacity is negative
     */
    public StorageFaults {
        requireRate("openRate", openRate);
        requireRate("readRate", readRate);
        requireRate("writeRate", writeRate);
        requireRate("syncRate", syncRate);
        requireRate("resizeRate", resizeRate);
        requireRate("removeRate", removeRate);
        requireRate("scanRate", scanRate);
        requireRate("partialWriteRate", partialWriteRate);
        requireRate("corruptReadRate", corruptReadRate);
        requireRate("corruptWriteRate", corruptWriteRate);
        requireRate("misdirectedWriteRate", misdirectedWriteRate);
        requireRate("metadataFullRate", metadataFullRate);
        if (syncFailure == null) {
            throw new InvalidConfigException("StorageFaults.syncFailure", "StorageFaults.syncFailure must not be null");
        }
        if (capacityBytes < 0) {
            throw new InvalidConfigException("StorageFaults.capacityBytes",
                    "StorageFaults.capacityBytes must be >= 0, was " + capacityBytes);
        }
    }

    static void requireRate(String owner, String field, double value) {
        if (!(value >= 0.0 && value <= 1.0)) {
            throw new InvalidConfigException(owner + "." + field, owner + "." + field + " must be in [0, 1], was "
                    + value);
        }
    }

    private static void requireRate(String field, double value) {
        requireRate("StorageFaults", field, value);
    }

    /**
     * A builder with every rate 0, the {@link SyncFailureModel#LINUX} model and unlimited capacity.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from this configuration.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return new Builder().openRate(openRate).readRate(readRate).writeRate(writeRate).syncRate(syncRate)
                .resizeRate(resizeRate).removeRate(removeRate).scanRate(scanRate)
                .partialWriteRate(partialWriteRate).syncFailure(syncFailure).capacityBytes(capacityBytes)
                .corruptReadRate(corruptReadRate).corruptWriteRate(corruptWriteRate)
                .misdirectedWriteRate(misdirectedWriteRate).metadataFullRate(metadataFullRate);
    }

    /**
     * Whether any silent-corruption rate is above 0.
     *
     * @return true if reads or writes may be corrupted or misdirected
     */
    public boolean corrupts() {
        return corruptReadRate > 0 || corruptWriteRate > 0 || misdirectedWriteRate > 0;
    }

    /**
     * The record's usual text; the silent-corruption rates and the metadata-full rate are named only when above 0,
     * so the text (which the audit records when a test replaces the faults) reads as it did before they existed.
     *
     * @return e.g. {@code StorageFaults[openRate=0.0, ...]}
     */
    @Override
    public String toString() {
        String text = "StorageFaults[openRate=" + openRate + ", readRate=" + readRate + ", writeRate=" + writeRate
                + ", syncRate=" + syncRate + ", resizeRate=" + resizeRate + ", removeRate=" + removeRate
                + ", scanRate=" + scanRate + ", partialWriteRate=" + partialWriteRate + ", syncFailure=" + syncFailure
                + ", capacityBytes=" + capacityBytes;
        if (corrupts()) {
            text += ", corruptReadRate=" + corruptReadRate + ", corruptWriteRate=" + corruptWriteRate
                    + ", misdirectedWriteRate=" + misdirectedWriteRate;
        }
        if (metadataFullRate > 0) {
            text += ", metadataFullRate=" + metadataFullRate;
        }
        return text + "]";
    }

    /** Builds a {@link StorageFaults}; values are validated by {@link #build()}. */
    public static final class Builder {
        private double openRate;
        private double readRate;
        private double writeRate;
        private double syncRate;
        private double resizeRate;
        private double removeRate;
        private double scanRate;
        private double partialWriteRate;
        private SyncFailureModel syncFailure = SyncFailureModel.LINUX;
        private long capacityBytes = Long.MAX_VALUE;
        private double corruptReadRate;
        private double corruptWriteRate;
        private double misdirectedWriteRate;
        private double metadataFullRate;

        private Builder() {
        }

        /**
         * Sets the failure rate of {@code open}.
         *
         * @param rate failure rate of {@code open}
         * @return this
         */
        public Builder openRate(double rate) {
            this.openRate = rate;
            return this;
        }

        /**
         * Sets the failure rate of file reads.
         *
         * @param rate failure rate of file reads
         * @return this
         */
        public Builder readRate(double rate) {
            this.readRate = rate;
            return this;
        }

        /**
         * Sets the failure rate of file writes.
         *
         * @param rate failure rate of file writes
         * @return this
         */
        public Builder writeRate(double rate) {
            this.writeRate = rate;
            return this;
        }

        /**
         * Sets the failure rate of {@code fsync}, {@code fdatasync} and {@code syncfs}.
         *
         * @param rate failure rate of {@code fsync}
         * @return this
         */
        public Builder syncRate(double rate) {
            this.syncRate = rate;
            return this;
        }

        /**
         * Sets the failure rate of {@code truncate}.
         *
         * @param rate failure rate of {@code truncate}
         * @return this
         */
        public Builder resizeRate(double rate) {
            this.resizeRate = rate;
            return this;
        }

        /**
         * Sets the failure rate of {@code unlink} and {@code rmdir}.
         *
         * @param rate failure rate of {@code unlink} and {@code rmdir}
         * @return this
         */
        public Builder removeRate(double rate) {
            this.removeRate = rate;
            return this;
        }

        /**
         * Sets the failure rate of directory listings.
         *
         * @param rate failure rate of directory listings
         * @return this
         */
        public Builder scanRate(double rate) {
            this.scanRate = rate;
            return this;
        }

        /**
         * Sets the chance that a failed write left a prefix in the page cache.
         *
         * @param rate chance that a failed write left a prefix in the page cache
         * @return this
         */
        public Builder partialWriteRate(double rate) {
            this.partialWriteRate = rate;
            return this;
        }

        /**
         * Sets what a failed sync does to the data it covered; {@link SyncFailureModel#LINUX} by default.
         *
         * @param model the model
         * @return this
         */
        public Builder syncFailure(SyncFailureModel model) {
            this.syncFailure = model;
            return this;
        }

        /**
         * Sets the disk's capacity.
         *
         * @param bytes the disk's capacity
         * @return this
         */
        public Builder capacityBytes(long bytes) {
            this.capacityBytes = bytes;
            return this;
        }

        /**
         * Sets the chance that a file read returns one bit flipped.
         *
         * @param rate the chance, in {@code [0, 1]}
         * @return this
         */
        public Builder corruptReadRate(double rate) {
            this.corruptReadRate = rate;
            return this;
        }

        /**
         * Sets the chance that a write stores its data with one bit flipped.
         *
         * @param rate the chance, in {@code [0, 1]}
         * @return this
         */
        public Builder corruptWriteRate(double rate) {
            this.corruptWriteRate = rate;
            return this;
        }

        /**
         * Sets the chance that a write lands at another offset of its file.
         *
         * @param rate the chance, in {@code [0, 1]}
         * @return this
         */
        public Builder misdirectedWriteRate(double rate) {
            this.misdirectedWriteRate = rate;
            return this;
        }

        /**
         * Sets the chance that a call adding a directory entry ({@code open} creating a file, {@code mkdir},
         * {@code rename}) fails {@code ENOSPC}.
         *
         * @param rate the chance, in {@code [0, 1]}
         * @return this
         */
        public Builder metadataFullRate(double rate) {
            this.metadataFullRate = rate;
            return this;
        }

        /**
         * Sets every failure rate (not {@code partialWriteRate}, nor the silent-corruption rates) to one value.
         *
         * @param rate the rate for open, read, write, sync, resize, remove and scan
         * @return this
         */
        public Builder allRates(double rate) {
            return openRate(rate).readRate(rate).writeRate(rate).syncRate(rate).resizeRate(rate).removeRate(rate)
                    .scanRate(rate);
        }

        /**
         * Validates and builds.
         *
         * @return the configuration
         * @throws InvalidConfigException naming the first invalid field and its value
         */
        public StorageFaults build() {
            return new StorageFaults(openRate, readRate, writeRate, syncRate, resizeRate, removeRate, scanRate,
                    partialWriteRate, syncFailure, capacityBytes, corruptReadRate, corruptWriteRate,
                    misdirectedWriteRate, metadataFullRate);
        }
    }
}
