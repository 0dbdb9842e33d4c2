package dev.lockstep.sim.os;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.sim.StorageFaults;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The faults a {@link SimFileSystem} injects: its {@link StorageFaults} configuration, which a test may replace
 * between calls, and every roll of it but a write's ({@link PageCache#write} rolls those). Each call of a faulted
 * kind rolls its rate once, before it has any effect, at the {@link Site} named here; a rate that draws only when
 * above 0 says so, so runs without it keep their digests. Not thread-safe.
 */
final class FsFaults {
    private final Generator generator;
    private StorageFaults config;

    FsFaults(Generator generator, StorageFaults config) {
        this.generator = Objects.requireNonNull(generator, "generator");
        this.config = Objects.requireNonNull(config, "faults");
    }

    StorageFaults config() {
        return config;
    }

    /** Replaces the configuration; effective from the next call. */
    void set(StorageFaults config) {
        this.config = Objects.requireNonNull(config, "faults");
    }

    /**
     * Rolls a call's rate at {@code site}.
     *
     * @throws KernelException {@code EIO} naming the call and its subject, if the roll says so
     */
    void roll(Site site, double rate, String call, String subject) {
        if (generator.chance(site, rate)) {
            throw new KernelException(Errno.EIO, call, subject);
        }
    }

    /**
     * Rolls {@link StorageFaults#metadataFullRate()} for a call that adds a directory entry, before the call has
     * any effect. Draws nothing while the rate is 0.
     *
     * @throws KernelException {@code ENOSPC} naming the call and its subject, if the roll says so
     */
    void metadataFull(String call, String subject) {
        if (config.metadataFullRate() > 0 && generator.chance(Site.FAULT_METADATA_FULL, config.metadataFullRate())) {
            throw new KernelException(Errno.ENOSPC, call, subject);
        }
    }

    /** Whether the device fails a read ({@link StorageFaults#readRate()}). */
    boolean readFails() {
        return generator.chance(Site.FAULT_READ, config.readRate());
    }

    /**
     * The device returns a wrong bit among the {@code read} bytes just read into {@code destination}, at
     * {@link StorageFaults#corruptReadRate()}; the file keeps its bytes. Draws nothing while the rate is 0.
     */
    void corruptRead(MemorySegment destination, int read) {
        if (read > 0 && config.corruptReadRate() > 0 && generator.chance(Site.CORRUPT_READ, config.corruptReadRate())) {
            long bit = generator.nextLong(Site.CORRUPT_READ, 8L * read);
            long at = bit >>> 3;
            byte flipped = (byte) (destination.get(ValueLayout.JAVA_BYTE, at) ^ (1 << (bit & 7)));
            destination.set(ValueLayout.JAVA_BYTE, at, flipped);
        }
    }

    /** Whether a sync fails ({@link StorageFaults#syncRate()}, at {@link Site#FAULT_SYNC}). */
    boolean syncFails() {
        return generator.chance(Site.FAULT_SYNC, config.syncRate());
    }
}
