/**
 * The kernel SPI: the one seam where the runtimes differ.
 *
 * <p>It describes what the engine asks of an operating system: a bounded ring of asynchronous
 * {@link dev.lockstep.kernel.Submission submissions} and their completions ({@link dev.lockstep.kernel.Ring}),
 * and the synchronous calls ({@link dev.lockstep.kernel.SystemCalls}: open, unlink, mkdir, directory scan,
 * sockets, locks). runtime-uring implements it with io_uring and libc over FFM; runtime-sim with a simulated
 * kernel. Errors are {@link dev.lockstep.kernel.KernelException}s carrying the errno, the call and its
 * subject; completions carry negative errno values exactly as io_uring does.
 *
 * <p>This package depends on nothing but the JDK.
 */
package dev.lockstep.kernel;
