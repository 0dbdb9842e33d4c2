/**
 * The demo's replicated log: Raft (Ongaro and Ousterhout, 2014), written against {@code dev.lockstep} and the JDK
 * only, so the same {@link dev.lockstep.demo.raft.RaftNode#task} runs on a simulated cluster node and as a process
 * on runtime-uring ({@code dev.lockstep.demo.RaftProcess}, the launcher). Meant to be read as an example.
 *
 * <ul>
 *   <li>{@link dev.lockstep.demo.raft.RaftNode}: election with randomized timeouts, replication, commitment; the
 *       current term, the vote and the log are synced before any answer that depends on them.</li>
 *   <li>{@code FollowerProgress} (a leader's view of its followers and of its read rounds) and {@code Ballot} (a
 *       candidate's votes): the node's bookkeeping, under its lock.</li>
 *   <li>{@code RequestServer} (connections accepted, requests answered) and {@code PeerLink} (the connection a node
 *       dials to a peer): how messages come and go; {@code Changes}: how a node's tasks wait for its state.</li>
 *   <li>{@code DurableState}: the term, vote and log on disk, and recovery (a torn or lost tail is cut off);
 *       {@code PeerSyncs}: when what a peer's request changed is synced (before the answer, or after it where a
 *       planted bug says so).</li>
 *   <li>{@code RarePaths}: the node's fault points, rare but legal paths a simulated run may take.</li>
 *   <li>{@code Messages}: the wire format; malformed input is refused with
 *       {@link dev.lockstep.demo.raft.MalformedMessageException} and closes its connection.</li>
 *   <li>{@link dev.lockstep.demo.raft.RaftClient}: append a command, read a committed one, read the commit index
 *       linearizably.</li>
 *   <li>{@link dev.lockstep.demo.raft.RaftObserver} and {@link dev.lockstep.demo.raft.RaftView}: the hooks a
 *       checker of Raft's safety properties, and a nemesis that targets the leader, read.</li>
 *   <li>{@code ElectionTimeouts}: the one source of randomness, {@code Context.random()}.</li>
 * </ul>
 * The {@link dev.lockstep.demo.kv.InjectedBug}s whose {@link dev.lockstep.demo.kv.InjectedBug#replication()} is
 * true plant one classic Raft bug each. May use {@code dev.lockstep}, {@code dev.lockstep.sync}, the JDK and that
 * enum, nothing else (LayeringTest).
 */
package dev.lockstep.demo.raft;
