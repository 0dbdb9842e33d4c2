package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lockstep.conformance.StorageWorkload.Kind;
import dev.lockstep.conformance.StorageWorkload.Op;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random storage operation sequences against the in-memory model of {@link StorageWorkload}: the simulator
 * (under the try's seed) and runtime-uring each give exactly the model's transcript — every result and every
 * error, then the same final state — and each ends with an empty driver (nothing admitted and not retired).
 */
class StorageModelProperties {

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Kind> kinds = Arbitraries.of(Kind.OPEN, Kind.OPEN, Kind.OPEN, Kind.CLOSE, Kind.WRITE, Kind.WRITE,
                Kind.VECTORED_WRITE, Kind.SYNC_WRITE, Kind.READ, Kind.READ, Kind.READ, Kind.RESIZE, Kind.SYNC,
                Kind.START_SYNC, Kind.REMOVE, Kind.REMOVE_PARTITION, Kind.SCAN);
        Arbitrary<Long> offsets = Arbitraries.oneOf(Arbitraries.longs().between(0, 256),
                Arbitraries.longs().between(0, 65_536));
        Arbitrary<Op> op = Combinators.combine(kinds, Arbitraries.integers().between(0, StorageWorkload.NAMES.size() - 1),
                Arbitraries.integers().between(0, 999), offsets, Arbitraries.integers().between(0, 2048),
                Arbitraries.longs()).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(60).map(ops -> {
            // Start with an open so most sequences do something.
            List<Op> withOpen = new ArrayList<>();
            withOpen.add(new Op(Kind.OPEN, 0, 0, 0, 0, 0));
            withOpen.addAll(ops);
            return withOpen;
        });
    }

    @Property(tries = 60)
    void storageSequencesMatchTheModelOnBothRuntimes(@ForAll("operations") List<Op> ops,
                                                     @ForAll @IntRange(min = 1, max = 1_000_000) int seed,
                                                     @ForAll @IntRange(min = 1, max = 2) int workers) {
        List<Op> plan = StorageWorkload.plan(ops, true);
        List<String> expected = StorageWorkload.model(plan);
        for (RuntimeConfig config : List.of(RuntimeConfig.sim(seed, workers), RuntimeConfig.uring(workers))) {
            try (Runtimes runtimes = new Runtimes(config, workers == 1 ? 1 : Conformance.DEFAULT_RING)) {
                Probe probe = runtimes.probe();
                List<String> transcript = runtimes.runner().start(ctx -> {
                    List<String> lines = StorageWorkload.run(ctx, plan);
                    Turns.drained(ctx, probe);
                    lines.add("admitted at the end: " + probe.admitted());
                    return lines;
                });
                List<String> withDriver = new ArrayList<>(expected);
                withDriver.add("admitted at the end: 0");
                assertEquals(String.join("\n", withDriver), String.join("\n", transcript), config.displayName());
            }
        }
    }
}
