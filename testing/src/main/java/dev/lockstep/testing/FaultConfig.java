package dev.lockstep.testing;

import dev.lockstep.sim.CrashPolicy;
import dev.lockstep.sim.KernelBehavior;
import dev.lockstep.sim.NetworkConfig;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.StorageFaults;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * Which faults are on, and how often they strike: the part of a simulation's configuration a test varies.
 *
 * <p>{@link #applyTo(SimConfig.Builder)} turns the storage and kernel faults into {@link StorageFaults},
 * {@link KernelBehavior} and {@link NetworkConfig}, which act without the test's help. {@link Fault#CRASH},
 * {@link Fault#PARTITION} and on-demand connection resets need a driver: {@link Nemesis} drives partitions and
 * resets from inside the run, and crashes are driven by whoever runs the lifetimes (the
 * {@link SimulationTest#crashes()} attribute, or the test's own {@code startAndRecover} loop).
 * {@link #crashPolicy(SplittableRandom)} picks the crash policy: with {@link Fault#TORN_WRITES} a prefix or a
 * subset of the unsynced writes survives, otherwise all of them are lost.
 *
 * <p>Immutable. The natural order of configurations is by the number of faults on, so that a shrinking property
 * test ends at the smallest configuration that still fails.
 *
 * @param enabled the faults that are on
 * @param intensity multiplies every storage and kernel fault rate; 1.0 is the default mix (rates of 0.2% to 2%)
 */
public record FaultConfig(Set<Fault> enabled, double intensity) {

    /** No faults. */
    public static final FaultConfig NONE = new FaultConfig(EnumSet.noneOf(Fault.class), 1.0);
    /**
     * Every {@linkplain Fault#standard() standard} fault: all but the silent-corruption kinds ({@link Fault#CORRUPTION},
     * {@link Fault#MISDIRECTED_WRITES}), which are on only when named ({@code all+corruption}).
     */
    public static final FaultConfig ALL = new FaultConfig(EnumSet.copyOf(java.util.Arrays.asList(Fault.standard())),
            1.0);

    /**
     * Copies the set.
     *
     * @throws IllegalArgumentException if intensity is not in {@code [0, 50]}
     */
    public FaultConfig {
        Objects.requireNonNull(enabled, "enabled");
        EnumSet<Fault> copy = EnumSet.noneOf(Fault.class);
        copy.addAll(enabled);
        enabled = Collections.unmodifiableSet(copy);
        if (!(intensity >= 0 && intensity <= 50)) {
            throw new IllegalArgumentException("FaultConfig.intensity must be in [0, 50], was " + intensity);
        }
    }

    /**
     * The given faults at the default intensity.
     *
     * @param faults the faults
     * @return the configuration
     */
    public static FaultConfig of(Fault... faults) {
        EnumSet<Fault> set = EnumSet.noneOf(Fault.class);
        Collections.addAll(set, faults);
        return new FaultConfig(set, 1.0);
    }

    /**
     * Swarm testing: each {@linkplain Fault#standard() standard} fault kind is on with probability one half, drawn
     * from {@code seed} alone, so the same seed always draws the same set. The silent-corruption kinds are never
     * drawn.
     *
     * @param seed the seed
     * @return the configuration
     */
    public static FaultConfig swarm(long seed) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        EnumSet<Fault> set = EnumSet.noneOf(Fault.class);
        for (Fault fault : Fault.standard()) {
            if (random.nextBoolean()) {
                set.add(fault);
            }
        }
        return new FaultConfig(set, 1.0);
    }

    /**
     * Parses a profile: {@code none}, {@code all}, or fault names joined by {@code ,} or {@code +} ({@code all}
     * among them stands for every standard fault, as in {@code all+corruption}), optionally followed by
     * {@code @intensity} (as {@link #toString()} writes it).
     *
     * @param profile the text
     * @return the configuration
     * @throws IllegalArgumentException naming the profile if it is empty (an empty profile is a slip, not a way to
     *                                  say {@code none}), names an unknown fault or one fault twice, or has an
     *                                  intensity that is not a decimal number ({@code NaN}, hex and a type suffix
     *                                  are refused) in {@code [0, 50]}
     */
    public static FaultConfig parse(String profile) {
        String text = profile.trim();
        double intensity = 1.0;
        int at = text.indexOf('@');
        if (at >= 0) {
            String number = text.substring(at + 1);
            if (!number.matches("[0-9]+(\\.[0-9]+)?([eE]-?[0-9]+)?")) {
                throw new IllegalArgumentException("bad intensity '" + number + "' in fault profile '" + profile
                        + "': a decimal number in [0, 50]");
            }
            intensity = Double.parseDouble(number);
            text = text.substring(0, at).trim();
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an empty fault profile '" + profile + "': name the faults, or none"
                    + " for no faults");
        }
        if (text.equalsIgnoreCase("none")) {
            return NONE.withIntensity(intensity);
        }
        if (text.equalsIgnoreCase("all")) {
            return ALL.withIntensity(intensity);
        }
        EnumSet<Fault> set = EnumSet.noneOf(Fault.class);
        for (String name : text.split("[,+]", -1)) {
            if (name.trim().equalsIgnoreCase("all")) {
                set.addAll(ALL.enabled());
                continue;
            }
            Fault fault = Fault.parse(name.trim());
            if (!set.add(fault)) {
                throw new IllegalArgumentException("fault profile '" + profile + "' names " + fault.cliName()
                        + " twice");
            }
        }
        return new FaultConfig(set, intensity);
    }

    /**
     * Whether a fault is on.
     *
     * @param fault the fault
     * @return true if on
     */
    public boolean has(Fault fault) {
        return enabled.contains(fault);
    }

    /**
     * This configuration with another intensity.
     *
     * @param value the intensity
     * @return the new configuration
     */
    public FaultConfig withIntensity(double value) {
        return new FaultConfig(enabled, value);
    }

    /**
     * The storage faults this configuration turns on.
     *
     * @return the rates and capacity
     */
    public StorageFaults storageFaults() {
        StorageFaults.Builder builder = StorageFaults.builder();
        if (has(Fault.READ_ERRORS)) {
            builder.readRate(rate(0.005));
        }
        if (has(Fault.WRITE_ERRORS)) {
            builder.writeRate(rate(0.005)).partialWriteRate(0.5);
        }
        if (has(Fault.SYNC_ERRORS)) {
            builder.syncRate(rate(0.005));
        }
        if (has(Fault.METADATA_ERRORS)) {
            builder.openRate(rate(0.02)).resizeRate(rate(0.02)).removeRate(rate(0.02)).scanRate(rate(0.02));
        }
        if (has(Fault.DISK_FULL)) {
            builder.capacityBytes(256 * 1024);
        }
        if (has(Fault.CORRUPTION)) {
            builder.corruptReadRate(rate(0.002)).corruptWriteRate(rate(0.002));
        }
        if (has(Fault.MISDIRECTED_WRITES)) {
            builder.misdirectedWriteRate(rate(0.002));
        }
        return builder.build();
    }

    /**
     * The kernel behaviour: a disk and ring whose latency (10 µs to 2 ms) lets completions reorder, with the
     * inconvenient results of {@link Fault#KERNEL_QUIRKS} when on.
     *
     * @return the behaviour
     */
    public KernelBehavior kernelBehavior() {
        KernelBehavior behavior = KernelBehavior.DEFAULT.withLatency(10_000, 2_000_000);
        if (has(Fault.KERNEL_QUIRKS)) {
            double r = rate(0.05);
            behavior = behavior.withShortTransfers(r, r).withSpuriousErrors(r, r).withCancelRaceRate(r);
        }
        return behavior;
    }

    /**
     * The network configuration: random resets on sends with {@link Fault#CONNECTION_RESET}.
     *
     * @return the configuration
     */
    public NetworkConfig network() {
        return has(Fault.CONNECTION_RESET) ? NetworkConfig.DEFAULT.withBreakRate(rate(0.002)) : NetworkConfig.DEFAULT;
    }

    /**
     * A crash policy: with {@link Fault#TORN_WRITES}, {@link CrashPolicy#PREFIX} or {@link CrashPolicy#SUBSET}
     * (drawn from {@code random}); otherwise {@link CrashPolicy#ALL_LOST}.
     *
     * @param random the source of the draw
     * @return the policy
     */
    public CrashPolicy crashPolicy(java.util.random.RandomGenerator random) {
        if (!has(Fault.TORN_WRITES)) {
            return CrashPolicy.ALL_LOST;
        }
        return random.nextBoolean() ? CrashPolicy.PREFIX : CrashPolicy.SUBSET;
    }

    /**
     * Sets storage faults, kernel behaviour and network configuration on a simulator configuration.
     *
     * @param builder the builder
     * @return the builder
     */
    public SimConfig.Builder applyTo(SimConfig.Builder builder) {
        return builder.storageFaults(storageFaults()).kernelBehavior(kernelBehavior()).network(network())
                .crashPolicy(has(Fault.TORN_WRITES) ? CrashPolicy.PREFIX : CrashPolicy.ALL_LOST);
    }

    private double rate(double base) {
        return Math.min(1.0, base * intensity);
    }

    /**
     * The profile text that {@link #parse} reads back.
     *
     * @return e.g. {@code crash+sync-errors}, {@code none}, {@code all} or {@code all+corruption}
     */
    @Override
    public String toString() {
        if (enabled.isEmpty()) {
            return intensity == 1.0 ? "none" : "none@" + intensity;
        }
        if (enabled.equals(ALL.enabled())) {
            return intensity == 1.0 ? "all" : "all@" + intensity;
        }
        StringJoiner joiner = new StringJoiner("+");
        boolean allStandard = enabled.containsAll(ALL.enabled());
        if (allStandard) {
            joiner.add("all");
        }
        for (Fault fault : enabled) {
            if (!allStandard || fault.isSilentCorruption()) {
                joiner.add(fault.cliName());
            }
        }
        return intensity == 1.0 ? joiner.toString() : joiner + "@" + intensity;
    }
}
