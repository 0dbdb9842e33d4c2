package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.Turns;
import dev.lockstep.conformance.StorageWorkload.Kind;
import dev.lockstep.conformance.StorageWorkload.Op;
import dev.lockstep.property.ForAll;
import dev.lockstep.property.Gen;
import dev.lockstep.property.Property;
import dev.lockstep.property.PropertyCheck;
import dev.lockstep.property.PropertyFailure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Random storage operation sequences against the in-memory model of {@link StorageWorkload}: the simulator
 * (under the try's seed) and runtime-uring each give exactly the model's transcript — every result and every
 * error, then the same final state — and each ends with nothing outstanding (its metrics' requests in flight and
 * queued reach 0).
 */
class StorageModelProperties {

    /** Operations after an opening {@code OPEN a}; kinds weighted by repetition, {@code OPEN} first. */
    static Gen<List<Op>> operations() {
        Gen<Kind> kinds = Gen.choose(Kind.OPEN, Kind.OPEN, Kind.OPEN, Kind.CLOSE, Kind.WRITE, Kind.WRITE,
                Kind.VECTORED_WRITE, Kind.SYNC_WRITE, Kind.READ, Kind.READ, Kind.READ, Kind.RESIZE, Kind.SYNC,
                Kind.START_SYNC, Kind.REMOVE, Kind.REMOVE_PARTITION, Kind.SCAN, Kind.RENAME, Kind.SYNC_PARTITION);
        Gen<Long> offsets = Gen.oneOf(Gen.longs(0, 256), Gen.longs(0, 65_536));
        Gen<Integer> names = Gen.ints(0, StorageWorkload.NAMES.size() - 1);
        Gen<Integer> handles = Gen.ints(0, 999);
        Gen<Integer> lengths = Gen.ints(0, 2048);
        Gen<Long> data = Gen.longs();
        Gen<Op> op = choices -> new Op(kinds.generate(choices), names.generate(choices), handles.generate(choices),
                offsets.generate(choices), lengths.generate(choices), data.generate(choices));
        return op.list(0, 60).map(ops -> {
            // Start with an open so most sequences do something.
            List<Op> withOpen = new ArrayList<>();
            withOpen.add(new Op(Kind.OPEN, 0, 0, 0, 0, 0));
            withOpen.addAll(ops);
            return withOpen;
        });
    }

    static Gen<Integer> seeds() {
        return Gen.ints(1, 1_000_000);
    }

    static Gen<Integer> workers() {
        return Gen.ints(1, 2);
    }

    @Group(ReadmeGroup.PROPERTIES)
    @Property(tries = 60)
    void storageSequencesMatchTheModelOnBothRuntimes(@ForAll("operations") List<Op> ops, @ForAll("seeds") int seed,
                                                     @ForAll("workers") int workers) {
        check(ops, List.of(RuntimeConfig.sim(seed, workers), RuntimeConfig.uring(workers)), workers, false);
    }

    @Test
    void aResizeThatNeverShrinksIsFoundAndShrunkToAWriteAndAResizeToZero() {
        // In the simulator only: shrinking runs the body a few hundred times.
        PropertyFailure failure = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("planted").seed(4)
                .tries(60).forAll(operations(), seeds(), workers(), (ops, seed, workers) ->
                        check(ops, List.of(RuntimeConfig.sim(seed, workers)), workers, true)));
        assertEquals("[OPEN a, WRITE h0 @0+1, RESIZE h0 to 0]", failure.shrunk().get(0).toString(),
                failure::getMessage);
        assertEquals(List.of(1, 1), failure.shrunk().subList(1, 3), "the smallest seed and one worker");
    }

    private static void check(List<Op> ops, List<RuntimeConfig> configs, int workers, boolean resizeNeverShrinks) {
        List<Op> plan = StorageWorkload.plan(ops, true);
        List<String> expected = StorageWorkload.model(plan);
        for (RuntimeConfig config : configs) {
            try (Runtimes runtimes = new Runtimes(config, workers == 1 ? 1 : Conformance.DEFAULT_RING)) {
                List<String> transcript = runtimes.runner().start(ctx -> {
                    List<String> lines = StorageWorkload.run(ctx, plan, resizeNeverShrinks);
                    Turns.drained(ctx, runtimes::requestsOutstanding);
                    return lines;
                });
                assertEquals(String.join("\n", expected), String.join("\n", transcript), config.displayName());
            }
        }
    }
}
