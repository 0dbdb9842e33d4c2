/**
 * Tools for users' own tests of code written against {@code dev.lockstep}: the JUnit 5 extension
 * ({@link dev.lockstep.testing.SimulationTest}, {@link dev.lockstep.testing.Seed}), fault configurations
 * ({@link dev.lockstep.testing.Fault}, {@link dev.lockstep.testing.FaultConfig}, {@link dev.lockstep.testing.Nemesis};
 * {@link dev.lockstep.testing.NodeNemesis} for the nodes of a {@code SimCluster}, one at a time, and
 * {@link dev.lockstep.testing.ClusterNemesis} for consensus protocols: isolation and minority/majority splits
 * ({@link dev.lockstep.testing.NetworkSplit}), correlated power loss of a majority or of every node, crashes at a
 * node's syncs and during its recovery, strikes at the voters of an election and at a vote as it is granted, aim at
 * the leader a protocol names,
 * swarm of disturbances per seed; {@link dev.lockstep.testing.NemesisStrategy} names them for tools
 * that pick one and hands a cluster test the one its run's search strategy chose),
 * {@link dev.lockstep.testing.Simulations} to run a task under a seed and faults (with crashes and restarts),
 * search strategies ({@link dev.lockstep.testing.SearchStrategy}, {@code combined} by default;
 * {@link dev.lockstep.testing.GuidedRuns} for a tool
 * that makes its runs itself), and
 * generators for properties ({@link dev.lockstep.testing.SimGenerators}, over the harness of
 * {@code dev.lockstep.property}) so that a failing property shrinks to the
 * smallest fault configuration that still fails.
 *
 * <p>The artifact {@code dev.lockstep:lockstep-testing}. Depends on {@code dev.lockstep}, runtime-sim and the JUnit
 * Jupiter API; on runtime-uring optionally, for {@code @SimulationTest(uring = true)} only ({@code UringRun} is
 * the one class that names it, and says which artifact to add when it is missing), and on lockstep-property,
 * which it re-exports.
 */
package dev.lockstep.testing;
