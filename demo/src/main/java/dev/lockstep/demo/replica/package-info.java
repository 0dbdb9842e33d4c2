/**
 * The demo's replicated log of puts, primary-backup and kept small, written on {@code dev.lockstep} and the JDK only,
 * so the same node runs on a simulated cluster node and as a process on runtime-uring.
 *
 * <h2>Protocol</h2>
 * Node 1 is the primary, the others are backups (no failover: while the primary is down, puts fail). A put reaches
 * the primary, which writes it to its log at the next index, syncs, and replicates it to the backups one by one
 * until one of them has acknowledged it; only then does it acknowledge the put. A backup writes what it is sent at
 * that index and syncs before it acknowledges. So an acknowledged put is durable on two of the three nodes: it
 * survives the loss of any one disk. {@link dev.lockstep.demo.replica.ReplicaNode} has the wire format.
 *
 * <p>Two {@link dev.lockstep.demo.kv.InjectedBug}s break that promise, each in one line: the primary acknowledging
 * before any backup has the put, and a backup acknowledging before its sync.
 */
package dev.lockstep.demo.replica;
