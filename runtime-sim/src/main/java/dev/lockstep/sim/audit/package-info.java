/**
 * What decides and what records a simulated run.
 *
 * <ul>
 *   <li>{@link dev.lockstep.sim.audit.Generator}: the one seeded random source, every draw tagged with its
 *       {@link dev.lockstep.sim.audit.Site} (new sites are appended, so existing seeds keep their draws).</li>
 *   <li>{@link dev.lockstep.sim.audit.Auditor}: the SHA-256 chain over every event, whose digest is a run's
 *       fingerprint. It encodes through {@code AuditChain} (the bytes, the chunked chain; the 4 KiB blocks it
 *       hashed lately, kept from run to run, in {@code RememberedBlocks}), takes the event kinds and their
 *       encodings from {@link dev.lockstep.sim.audit.AuditKind}, finds those recorded by name in a
 *       {@code KindTable}, and keeps a traced run's events in an {@code AuditTrace}.</li>
 *   <li>{@link dev.lockstep.sim.audit.SearchState}: one run's search state: the fault points drawn, the
 *       {@code sometimes} labels reached and the coverage the run reports.</li>
 * </ul>
 *
 * <p>Dependencies: the JDK, and the value types of {@code dev.lockstep.sim} a run is configured and reported with
 * ({@code DecisionChain}, {@code FaultPoints}, {@code Coverage}, {@code InvalidConfigException}). Not the simulated
 * OS, the scheduler or the run: they draw and record here.
 */
package dev.lockstep.sim.audit;
