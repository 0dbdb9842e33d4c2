/**
 * One request's life on its worker: admitted, queued, submitted, completed, observed, retired.
 *
 * <ul>
 *   <li>{@link dev.lockstep.engine.request.Driver}: the slab of a worker's requests, and its parts —
 *       {@code SlotTable} and {@code Slot} (states and generations), {@code WaiterId} (a generation-tagged slot
 *       index), {@code AdmissionWaits} (syncs and metadata changes waiting for a permit or a lane),
 *       {@code RingExchange} and {@code SubmitQueues} (the queues to the ring, its in-flight budgets, staging and
 *       completions), {@code RequestEnds} (every way out of a slot), {@code TimerHeap} (deadlines).</li>
 *   <li>{@link dev.lockstep.engine.request.Request}: what a request is; {@code TimerRequest} and
 *       {@code Immediate} are the kinds without an fd (the ring's are in {@code engine.io}).</li>
 *   <li>The operation side: {@link dev.lockstep.engine.request.Registration} (the {@code Operation} of an admitted
 *       request), {@code Observer}, {@code Results}, {@code ResultChannel} (a result handed across threads),
 *       {@code Completed} and {@code ChannelOperation} (operations without a slot), {@code PendingSet} (a
 *       stream's operations, closed together).</li>
 * </ul>
 *
 * <p>May depend on the JDK, the API, the kernel SPI, {@code dev.lockstep.engine} (the foreign-caller check),
 * {@code engine.worker} (the worker a request is admitted on, its deferred queue and metrics) and
 * {@code engine.task} (the fiber that awaits). One edge runs up into {@code engine.io}: the driver parks a sync on
 * its open's {@code DurabilityPermit} and a metadata change on its partition's {@code MetadataLane}. Never the
 * buffers: a request's memory is the business of the ring requests in {@code engine.io}.
 */
package dev.lockstep.engine.request;
