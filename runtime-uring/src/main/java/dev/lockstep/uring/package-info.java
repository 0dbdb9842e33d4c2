/**
 * The production kernel: {@link dev.lockstep.kernel.Kernel} implemented on Linux with io_uring and libc,
 * called through {@code java.lang.foreign} only (no JNI, no native library of our own).
 *
 * <p>{@link dev.lockstep.uring.UringKernel} opens one {@link dev.lockstep.uring.UringRing} per worker, on
 * the worker's own platform thread, and hands out the thread-safe {@link dev.lockstep.uring.LinuxSystemCalls}.
 * The package-private {@code Libc} holds every downcall handle; nothing else here touches the linker.
 *
 * <p>Supported: Linux 5.11 or newer (6.1 or newer for {@code SINGLE_ISSUER | DEFER_TASKRUN}) on x86-64 or
 * aarch64. The JVM must allow native access ({@code --enable-native-access=ALL-UNNAMED} or this module).
 *
 * <p>This package depends on the JDK and on runtime-core ({@code dev.lockstep.kernel}; the engine's
 * {@code dev.lockstep.engine} for the runner and {@code dev.lockstep.engine.task} for the JDK's carrier threads)
 * and the api ({@code dev.lockstep}); nothing depends on it but the code that chooses the production runtime.
 */
package dev.lockstep.uring;
