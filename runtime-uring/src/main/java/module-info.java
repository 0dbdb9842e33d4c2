/**
 * The production runtime: worker threads that each own a Linux io_uring ring, driven through the FFM API
 * ({@code dev.lockstep.uring.UringRunner}).
 *
 * <p>Its downcalls into the kernel are restricted FFM methods: a JVM that runs it on the module path needs
 * {@code --enable-native-access=lockstep.runtime.uring} (on the class path, {@code =ALL-UNNAMED}), and the engine's
 * {@code --add-opens} (see {@code lockstep.runtime.core}).
 */
module lockstep.runtime.uring {
    requires transitive lockstep.api;
    requires jdk.jfr;
    requires lockstep.runtime.core;

    exports dev.lockstep.uring;
}
