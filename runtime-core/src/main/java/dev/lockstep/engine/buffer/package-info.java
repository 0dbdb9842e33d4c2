/**
 * The memory the engine hands the kernel.
 *
 * <ul>
 *   <li>{@link dev.lockstep.engine.buffer.WorkerBuffers}: a worker's pool of native buffers (the
 *       {@code BufferPool} of the API), from which every read, write, receive and send takes its memory.</li>
 *   <li>{@code PooledBuffer}: one such buffer, the {@code IoBuffer} user code holds.</li>
 *   <li>{@link dev.lockstep.engine.buffer.ReceiveMemory}: one runner's bound on buffered receive memory.</li>
 * </ul>
 *
 * <p>May depend on the JDK, the API, {@code engine.worker} (the worker a pool belongs to, its metrics) and
 * {@code dev.lockstep.engine} (whether a caller's worker is of the pool's runner). Never requests, fibers or {@code engine.io}: those use
 * the buffers.
 */
package dev.lockstep.engine.buffer;
