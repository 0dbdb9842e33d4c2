package dev.lockstep.testing;

import dev.lockstep.Blob;
import dev.lockstep.StorageException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A property that fails when a write fails: only {@link Fault#WRITE_ERRORS} (and a full disk, which these small
 * writes never fill) can make it fail, so shrinking must end at {@code write-errors} alone. Run by
 * {@link SimArbitrariesTest} through the JUnit Platform launcher.
 */
class ShrinkFixture {
    static final List<FaultConfig> failing = new ArrayList<>();

    @Property(tries = 30, seed = "7", afterFailure = net.jqwik.api.AfterFailureMode.RANDOM_SEED)
    void writesNeverFail(@ForAll("seeds") long seed, @ForAll("faults") FaultConfig faults) {
        boolean failed = Simulations.run(seed, faults, ctx -> {
            Blob opened = null;
            while (opened == null) {
                try {
                    opened = ctx.open("p", "b").await().blob();
                } catch (StorageException metadataFault) {
                    // Opening may fail under metadata faults; that is not what this property is about.
                }
            }
            try (Blob blob = opened) {
                for (int i = 0; i < 400; i++) {
                    try {
                        blob.writeAt(i * 8L, new byte[8]).await();
                    } catch (StorageException writeFault) {
                        return true;
                    }
                }
            }
            return false;
        });
        if (failed) {
            failing.add(faults);
            org.junit.jupiter.api.Assertions.fail("a write failed under " + faults);
        }
    }

    @Provide
    Arbitrary<Long> seeds() {
        return SimArbitraries.seeds();
    }

    @Provide
    Arbitrary<FaultConfig> faults() {
        return SimArbitraries.faultConfigs();
    }
}
