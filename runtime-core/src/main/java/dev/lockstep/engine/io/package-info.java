/**
 * {@code Storage} and {@code Network} implemented once over the kernel SPI, so both runtimes share their semantics.
 *
 * <ul>
 *   <li>Storage: {@link dev.lockstep.engine.io.EngineStorage} and {@link dev.lockstep.engine.io.EngineBlob}; the
 *       requests a blob admits ({@code BlobReadRequest}, {@code BlobWriteRequest}, {@code BlobSyncRequest},
 *       {@code BlobExtentRequest}, {@code BlobFlush}); the metadata changes of a partition
 *       ({@code OpenBlobRequest}, {@code RemoveBlobRequest}, {@code RenameBlobRequest},
 *       {@code SyncPartitionRequest}, over {@code MetadataRequest} and {@code PathChain}) and the
 *       {@code MetadataLane} that orders them; {@link dev.lockstep.engine.io.DurabilityPermit}, one per open file,
 *       that runs its syncs one at a time and groups waiting ones.</li>
 *   <li>Network: {@code EngineNetwork} (bind, dial, listeners, sends), {@code EngineStream} (a connection's
 *       receives), {@code ConnectionSides}, {@code OutboundRequest}.</li>
 *   <li>Shared: {@code RingRequest} (a ring request on an fd with at most one buffer), {@code SharedFd} (an fd
 *       closed with its last reference), {@code OwnedResources} (the fds a run owns).</li>
 * </ul>
 *
 * <p>The top room: may depend on the JDK, the API, the kernel SPI, {@code jdk.jfr} and every engine room. Two
 * edges come back into it: {@code engine.request} parks syncs on the {@code DurabilityPermit} and metadata changes
 * on the {@code MetadataLane}, and {@code engine.worker} types its request recyclers by kinds from here.
 */
package dev.lockstep.engine.io;
