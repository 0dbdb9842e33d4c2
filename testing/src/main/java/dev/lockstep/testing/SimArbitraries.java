package dev.lockstep.testing;

import java.util.EnumSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * jqwik arbitraries for simulated properties.
 *
 * <p>{@link #seeds()} does not shrink: a smaller seed is a different run, not a simpler one. {@link #faultConfigs}
 * shrinks by turning faults off, so a failing property ends at the smallest set of fault kinds that still makes
 * it fail. Turning a fault off keeps the rest of the run: the simulator draws every fault roll whatever its rate,
 * so the schedule of everything else is unchanged.
 *
 * <pre>{@code
 * @Property(tries = 50)
 * void survives(@ForAll("seeds") long seed, @ForAll("faults") FaultConfig faults) {
 *     Simulations.run(seed, faults, ctx -> { ...; return null; });
 * }
 * @Provide Arbitrary<Long> seeds() { return SimArbitraries.seeds(); }
 * @Provide Arbitrary<FaultConfig> faults() { return SimArbitraries.faultConfigs(); }
 * }</pre>
 */
public final class SimArbitraries {
    private SimArbitraries() {
    }

    /**
     * Seeds: any non-negative long, not shrunk.
     *
     * @return the arbitrary
     */
    public static Arbitrary<Long> seeds() {
        return Arbitraries.randomValue(random -> random.nextLong() & Long.MAX_VALUE);
    }

    /**
     * Fault configurations over every {@link Fault}: each a subset, shrinking towards fewer faults.
     *
     * @return the arbitrary
     */
    public static Arbitrary<FaultConfig> faultConfigs() {
        return faultConfigs(Fault.values());
    }

    /**
     * Fault configurations over the given kinds only.
     *
     * @param kinds the kinds that may be on
     * @return the arbitrary
     */
    public static Arbitrary<FaultConfig> faultConfigs(Fault... kinds) {
        return Arbitraries.subsetOf(List.of(kinds)).map(set -> {
            EnumSet<Fault> faults = EnumSet.noneOf(Fault.class);
            faults.addAll(set);
            return new FaultConfig(faults, 1.0);
        });
    }

    /**
     * Fault configurations with an intensity as well, from 0.5 to 10 times the default rates; shrinking towards
     * fewer faults and the default intensity.
     *
     * @return the arbitrary
     */
    public static Arbitrary<FaultConfig> faultConfigsWithIntensity() {
        return faultConfigs().flatMap(config -> Arbitraries.doubles().between(0.5, 10).ofScale(1).shrinkTowards(1.0)
                .map(config::withIntensity));
    }
}
