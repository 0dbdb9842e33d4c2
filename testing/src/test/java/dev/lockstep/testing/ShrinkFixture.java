package dev.lockstep.testing;

import dev.lockstep.Blob;
import dev.lockstep.StorageException;
import dev.lockstep.property.ForAll;
import dev.lockstep.property.Gen;
import dev.lockstep.property.Property;
import java.util.ArrayList;
import java.util.List;

/**
 * A property that fails when a write fails: only {@link Fault#WRITE_ERRORS} (and a full disk, which these small
 * writes never fill) can make it fail, so shrinking must end at {@code write-errors} alone. Run by
 * {@link SimGeneratorsTest} through the JUnit Platform launcher (the name matches no build pattern).
 */
class ShrinkFixture {
    static final List<FaultConfig> failing = new ArrayList<>();

    @Property(tries = 30, seed = 7)
    void writesNeverFail(@ForAll("seeds") long seed, @ForAll("faults") FaultConfig faults) {
        if (writeFails(seed, faults)) {
            failing.add(faults);
            org.junit.jupiter.api.Assertions.fail("a write failed under " + faults);
        }
    }

    /**
     * Whether one of 1,200 small writes fails under {@code faults}. So many that with write errors on (0.5 % a
     * write) a run without a failed write is a 1-in-400 chance: turning another fault off changes the schedule
     * once that fault has fired (an open retried after a metadata error), and the property must still fail then.
     */
    static boolean writeFails(long seed, FaultConfig faults) {
        return Simulations.run(seed, faults, ctx -> {
            Blob opened = null;
            while (opened == null) {
                try {
                    opened = ctx.open("p", "b").await().blob();
                } catch (StorageException metadataFault) {
                    // Opening may fail under metadata faults; that is not what this property is about.
                }
            }
            try (Blob blob = opened) {
                for (int i = 0; i < 1200; i++) {
                    try {
                        blob.writeAt(i * 8L, new byte[8]).await();
                    } catch (StorageException writeFault) {
                        return true;
                    }
                }
            }
            return false;
        });
    }

    static Gen<Long> seeds() {
        return SimGenerators.seeds();
    }

    static Gen<FaultConfig> faults() {
        return SimGenerators.faultConfigs();
    }
}
