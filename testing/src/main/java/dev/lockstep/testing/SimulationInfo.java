package dev.lockstep.testing;

/**
 * What a {@link SimulationTest} invocation runs under.
 *
 * @param seed the seed (on runtime-uring: the first seed, for the random generator)
 * @param lifetime 0 for the first run of a seed, {@code n} after the {@code n}th crash
 * @param lastLifetime whether this is the seed's last lifetime (the one that is not cut by a crash)
 * @param faults the faults on
 * @param simulated true in the simulator, false on runtime-uring
 */
public record SimulationInfo(long seed, int lifetime, boolean lastLifetime, FaultConfig faults, boolean simulated) {
}
