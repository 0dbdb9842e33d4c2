/**
 * The simulated operating system: the implementation of {@code dev.lockstep.kernel} a simulated runner's workers
 * run on.
 *
 * <ul>
 *   <li>{@link dev.lockstep.sim.os.SimKernel}, {@link dev.lockstep.sim.os.SimRing} and
 *       {@link dev.lockstep.sim.os.SimSystemCalls}: one simulated host's rings, fd table and synchronous calls,
 *       with the behaviour of a real kernel at configurable rates ({@link dev.lockstep.sim.KernelBehavior}):
 *       latency, completions at submission (and reads answered at the call) where io_uring tries a request at
 *       once, completion order, short transfers, spurious {@code EAGAIN}/{@code EINTR}, cancellation races, the
 *       time each synchronous call keeps its worker busy. The rings hand out native memory ({@code NativeMemory})
 *       and take only native buffers, as io_uring does; what a run still holds at its end is named by
 *       {@link dev.lockstep.sim.os.SimKernel#heldResources()}, each fd with the line that opened it
 *       ({@code Origins}). A ring's parts: what is decided when a request is submitted ({@code RingSubmitter}),
 *       the requests in flight ({@code RingInFlight}, {@code InFlightQueue}) and what each opcode does
 *       ({@code SimOpcodes}). The kernel's parts: its fd table ({@code FdTable}) and what an fd names
 *       ({@code Description}: {@code FileDescription}, {@code SocketDescription}), its rings' native memory
 *       ({@code RingMemory}), where a system call's latency goes ({@code SyscallLatency}) and its loopback
 *       addresses ({@code LoopbackHosts}).</li>
 *   <li>{@link dev.lockstep.sim.os.SimFileSystem}: files and directories with a page cache and a durable image,
 *       storage faults, failed syncs and crashes; its model is in {@code FsNodes} and {@code FsNamespace} (paths
 *       and nodes), {@code OpenHandles} (handles, epochs, locks), {@code FileStore} (reads, writes, size changes, syncs, capacity) over {@code PageCache}
 *       (the page cache, failed syncs, sectors), {@code FsFaults} (fault rolls), {@code CrashRecovery} and
 *       {@code ByteImage}. A write's bytes, like a send's, are kept as the caller's array when the caller owns it
 *       whole, else as a copy ({@code OwnedBytes}).</li>
 *   <li>{@link dev.lockstep.sim.os.SimNetwork}: simulated hosts, links with latency and jitter, partitions and
 *       resets; a socket's state is {@code SimSocket} and {@code SocketStateMachine}, links and partitioned
 *       directions {@code NetworkTopology}.</li>
 *   <li>{@link dev.lockstep.sim.os.SimClock}: simulated time, moved only by the scheduler;
 *       {@link dev.lockstep.sim.os.NodeClock}: a cluster node's own offset and drift over it.</li>
 *   <li>What the kernel asks of the run that owns it: {@link dev.lockstep.sim.os.OwningRun} (confinement) and
 *       {@link dev.lockstep.sim.os.IoBoundaryListener} (a node's I/O boundaries).</li>
 * </ul>
 *
 * <p>Dependencies: the JDK, {@code dev.lockstep.kernel}, {@code dev.lockstep}, {@code dev.lockstep.sim.audit}
 * (every decision is a draw of the generator and an event of the audit), and the configuration types of
 * {@code dev.lockstep.sim} it reads ({@code StorageFaults}, {@code KernelBehavior}, {@code NetworkConfig}, ...).
 * Not the scheduler ({@code dev.lockstep.sim.sched}) and not the run: what it needs of the run comes through the
 * two interfaces above.
 */
package dev.lockstep.sim.os;
