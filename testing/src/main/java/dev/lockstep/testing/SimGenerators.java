package dev.lockstep.testing;

import dev.lockstep.property.Gen;
import java.util.EnumSet;
import java.util.List;

/**
 * Generators for simulated properties ({@link dev.lockstep.property.Property}), so that a failing property shrinks
 * to the smallest fault configuration that still fails.
 *
 * <p>{@link #seeds()} are never lowered: a smaller seed is a different run, not a simpler one.
 * {@link #faultConfigs} draws one on/off choice per fault kind, and the shrinker lowers a choice to "off", so a
 * failing property ends at the smallest set of fault kinds that still makes it fail; turning a fault off keeps
 * the rest of the run, because the simulator draws every fault roll whatever its rate. With
 * {@link #faultConfigsWithIntensity()} the rates shrink too, towards the lowest intensity that still fails.
 *
 * <pre>{@code
 * @Property(tries = 30)
 * void writesNeverFail(@ForAll("seeds") long seed, @ForAll("faults") FaultConfig faults) {
 *     Simulations.run(seed, faults, ctx -> { ...; return null; });
 * }
 * static Gen<Long> seeds() { return SimGenerators.seeds(); }
 * static Gen<FaultConfig> faults() { return SimGenerators.faultConfigs(); }
 * }</pre>
 */
public final class SimGenerators {
    /** The intensities {@link #faultConfigsWithIntensity()} draws from, lowest (what it shrinks to) first. */
    static final List<Double> INTENSITIES = List.of(0.5, 1.0, 2.0, 5.0, 10.0);

    private SimGenerators() {
    }

    /**
     * Seeds: any non-negative long, never lowered by shrinking.
     *
     * @return the generator
     */
    public static Gen<Long> seeds() {
        return Gen.seeds();
    }

    /**
     * Fault configurations over every {@linkplain Fault#standard() standard} {@link Fault} (not the silent-corruption
     * kinds, which a test names with {@link #faultConfigs(Fault...)}): each kind on or off, shrinking towards fewer
     * faults.
     *
     * @return the generator
     */
    public static Gen<FaultConfig> faultConfigs() {
        return faultConfigs(Fault.standard());
    }

    /**
     * Fault configurations over the given kinds only.
     *
     * @param kinds the kinds that may be on
     * @return the generator
     */
    public static Gen<FaultConfig> faultConfigs(Fault... kinds) {
        List<Fault> candidates = List.of(kinds);
        return choices -> {
            EnumSet<Fault> on = EnumSet.noneOf(Fault.class);
            for (Fault fault : candidates) {
                if (choices.flip(0.5)) {
                    on.add(fault);
                }
            }
            return new FaultConfig(on, 1.0);
        };
    }

    /**
     * Fault configurations with an intensity as well, from 0.5 to 10 times the default rates: shrinking turns faults
     * off and lowers the rates.
     *
     * @return the generator
     */
    public static Gen<FaultConfig> faultConfigsWithIntensity() {
        Gen<FaultConfig> configs = faultConfigs();
        Gen<Double> intensities = Gen.choose(INTENSITIES);
        return choices -> configs.generate(choices).withIntensity(intensities.generate(choices));
    }
}
