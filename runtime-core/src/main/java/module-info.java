/**
 * The worker engine both runtimes share ({@code dev.lockstep.engine} and its rooms {@code .worker},
 * {@code .request}, {@code .task}, {@code .buffer}, {@code .io}) and the kernel SPI each implements
 * ({@code dev.lockstep.kernel}). None of them is application API: each is exported only to the runtimes that use
 * it, and {@code .io} (storage and network, reached through the {@code Context}) to none.
 *
 * <p>The engine builds its fibers through a package-private constructor of {@code java.lang}'s virtual-thread
 * builder, opened reflectively, so a JVM that runs it on the module path needs
 * {@code --add-opens java.base/java.lang=lockstep.runtime.core} (on the class path, {@code =ALL-UNNAMED}).
 */
module lockstep.runtime.core {
    requires transitive lockstep.api;
    requires jdk.jfr;

    exports dev.lockstep.engine to lockstep.runtime.uring, lockstep.runtime.sim;
    exports dev.lockstep.engine.task to lockstep.runtime.uring, lockstep.runtime.sim;
    exports dev.lockstep.engine.worker to lockstep.runtime.sim;
    exports dev.lockstep.engine.request to lockstep.runtime.sim;
    exports dev.lockstep.engine.buffer to lockstep.runtime.sim;
    exports dev.lockstep.kernel to lockstep.runtime.uring, lockstep.runtime.sim;

    provides dev.lockstep.spi.Awaiter with dev.lockstep.engine.task.FiberAwaiter;
}
