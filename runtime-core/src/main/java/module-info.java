/**
 * The worker engine both runtimes share ({@code dev.lockstep.engine}) and the kernel SPI each implements
 * ({@code dev.lockstep.kernel}). Neither package is application API: both are exported only to the modules that
 * implement a runtime on them.
 *
 * <p>The engine builds its fibers through a package-private constructor of {@code java.lang}'s virtual-thread
 * builder, opened reflectively, so a JVM that runs it on the module path needs
 * {@code --add-opens java.base/java.lang=lockstep.runtime.core} (on the class path, {@code =ALL-UNNAMED}).
 */
module lockstep.runtime.core {
    requires transitive lockstep.api;
    requires jdk.jfr;

    exports dev.lockstep.engine to lockstep.runtime.uring, lockstep.runtime.sim;
    exports dev.lockstep.kernel to lockstep.runtime.uring, lockstep.runtime.sim;

    provides dev.lockstep.spi.Awaiter with dev.lockstep.engine.FiberAwaiter;
}
