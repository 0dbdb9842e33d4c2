package dev.lockstep.testing;

import dev.lockstep.Task;
import dev.lockstep.uring.UringRunner;
import java.lang.reflect.Method;
import java.nio.file.Path;

/**
 * The one place that names runtime-uring. lockstep-testing depends on it optionally (only
 * {@code @SimulationTest(uring = true)} needs it), so nothing else in this package may refer to its classes:
 * loading this class is what needs {@code dev.lockstep:lockstep-runtime-uring} on the class path, and
 * {@link #requireOnClassPath} checks that first, with a message that says which artifact to add.
 */
final class UringRun {
    /** The artifact a user adds to run {@code uring = true}. */
    static final String ARTIFACT = "dev.lockstep:lockstep-runtime-uring";

    private UringRun() {
    }

    /**
     * Fails unless runtime-uring is visible to {@code loader}.
     *
     * @param method the test method that asked for the run, named in the message
     * @param loader the class loader to look in
     * @throws IllegalStateException naming the missing artifact
     */
    static void requireOnClassPath(Method method, ClassLoader loader) {
        try {
            Class.forName("dev.lockstep.uring.UringRunner", false, loader);
        } catch (ClassNotFoundException | LinkageError missing) {
            throw new IllegalStateException("@SimulationTest(uring = true) on " + method.getDeclaringClass()
                    .getSimpleName() + "." + method.getName() + " needs runtime-uring on the test class path: add "
                    + ARTIFACT + " (test scope) next to lockstep-testing, or remove uring = true", missing);
        }
    }

    /** Runs {@code task} as the root task of a fresh runtime-uring runner over {@code storage}. */
    static <T> T start(int workers, Path storage, Task<T> task) {
        return UringRunner.builder().workers(workers).storage(storage).build().start(task);
    }
}
