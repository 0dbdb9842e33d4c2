/**
 * The worker engine both runtimes share ({@code dev.lockstep.engine}) and the kernel SPI each implements
 * ({@code dev.lockstep.kernel}). Neither package is application API: both are exported only to the modules that
 * implement a runtime on them, and the engine also to {@code lockstep.testing}, which names the engine's
 * required JVM flag ({@code Fibers.REQUIRED_FLAG}) when a run fails for want of it.
 *
 * <p>The engine builds its fibers through a package-private constructor of {@code java.lang}'s virtual-thread
 * builder, opened reflectively, so a JVM that runs it on the module path needs
 * {@code --add-opens java.base/java.lang=lockstep.runtime.core} (on the class path, {@code =ALL-UNNAMED}).
 */
module lockstep.runtime.core {
    requires transitive lockstep.api;
    requires jdk.jfr;

    exports dev.lockstep.engine to lockstep.runtime.uring, lockstep.runtime.sim, lockstep.testing;
    exports dev.lockstep.kernel to lockstep.runtime.uring, lockstep.runtime.sim;

    provides dev.lockstep.spi.Awaiter with dev.lockstep.engine.FiberAwaiter;
}
