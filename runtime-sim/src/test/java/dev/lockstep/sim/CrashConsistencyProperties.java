package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.property.ForAll;
import dev.lockstep.property.Gen;
import dev.lockstep.property.Property;
import dev.lockstep.property.PropertyCheck;
import dev.lockstep.property.PropertyFailure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Crash consistency over random operation sequences; the checks live in {@link CrashModel}. */
class CrashConsistencyProperties {

    /** Writes first (a write of one byte at 0 is what the shrinker lowers an operation to), then the rest. */
    static Gen<List<CrashModel.Op>> operations() {
        Gen<Integer> offsets = Gen.ints(0, 3000);
        Gen<Integer> lengths = Gen.ints(1, 1600);
        Gen<Boolean> dsync = Gen.frequency(Gen.weighted(3, false), Gen.weighted(1, true));
        Gen<CrashModel.Op> write = choices -> new CrashModel.Write(offsets.generate(choices),
                lengths.generate(choices), dsync.generate(choices));
        Gen<CrashModel.Op> truncate = Gen.ints(0, 4000).map(CrashModel.Truncate::new);
        Gen<CrashModel.Op> op = Gen.frequency(
                Gen.weighted(8, write),
                Gen.weighted(2, new CrashModel.Sync()),
                Gen.weighted(2, truncate),
                Gen.weighted(2, new CrashModel.Crash()));
        return op.list(1, 40);
    }

    static Gen<CrashPolicy> policies() {
        return Gen.enums(CrashPolicy.class);
    }

    @Property(tries = 100)
    void crashesKeepSyncedBytesAndObeyThePolicy(@ForAll long seed, @ForAll("operations") List<CrashModel.Op> ops,
            @ForAll("policies") CrashPolicy policy) {
        check(seed, ops, policy, CrashModel.PlantedBug.NONE);
    }

    @Test
    void aFileSystemThatChangesASyncedByteIsFoundAndShrunkToOneWriteAndOneSync() {
        PropertyFailure failure = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("planted").seed(3)
                .tries(100).forAll(Gen.longs(), operations(), policies(), (seed, ops, policy) -> check(seed, ops,
                        policy, CrashModel.PlantedBug.FLIPS_THE_LAST_SYNCED_BYTE)));
        assertEquals(List.of(0L, List.of(new CrashModel.Write(0, 1, false), new CrashModel.Sync()),
                CrashPolicy.values()[0]), failure.shrunk(), failure::getMessage);
    }

    private static void check(long seed, List<CrashModel.Op> ops, CrashPolicy policy, CrashModel.PlantedBug bug) {
        // Every sequence ends in a crash, so at least one recovery is checked against the model.
        List<CrashModel.Op> withFinalCrash = new ArrayList<>(ops);
        withFinalCrash.add(new CrashModel.Crash());
        assertTrue(CrashModel.run(seed, withFinalCrash, policy, bug) >= 1);
    }
}
