package dev.lockstep.engine;

import dev.lockstep.Runner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Cases that inspect the engine's internals (a worker's admitted requests, its borrow, raw requests on the kernel
 * SPI) and must hold on both runtimes. They live here, beside the engine, because the conformance suite uses the
 * public API alone; each runtime's tests run them through a small subclass that lists that runtime's
 * configurations ({@link #runtimes()}): runtime-sim under several seeds with one and two workers, runtime-uring
 * with one and two worker threads.
 *
 * <p>One instance serves every case of a class ({@code PER_CLASS}), so that {@link #runtimes()} can be an instance
 * method the subclass implements; the instance keeps nothing between cases but the storage directories of the
 * current case, deleted after it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class WhiteBoxCases {
    private final List<Path> directories = new ArrayList<>();

    /**
     * The configurations every case runs under.
     *
     * @return the runtime's configurations, each named by its {@code toString}
     */
    protected abstract List<WhiteBoxRuntime> runtimes();

    /**
     * A fresh runner with {@code ringEntries} ring entries per worker whose simulated run fails if it ends
     * holding what it did not start with.
     *
     * @param rt the configuration
     * @param ringEntries ring entries per worker
     * @return the runner
     */
    protected Runner runner(WhiteBoxRuntime rt, int ringEntries) {
        return rt.runner(ringEntries, rt.isSim() ? null : freshDirectory(), true);
    }

    /**
     * A fresh runner for a case that ends its run still holding resources on purpose, the contract under test
     * being what happens to them; the simulator's leak check is off for it.
     *
     * @param rt the configuration
     * @param ringEntries ring entries per worker
     * @param why what escapes the run
     * @return the runner
     */
    protected Runner runnerLeavingOpen(WhiteBoxRuntime rt, int ringEntries, String why) {
        return rt.runner(ringEntries, rt.isSim() ? null : freshDirectory(), false);
    }

    /**
     * A new empty directory, deleted after the case.
     *
     * @return the directory
     */
    protected Path freshDirectory() {
        try {
            Path directory = Files.createTempDirectory("lockstep-whitebox-");
            directories.add(directory);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterEach
    void deleteDirectories() throws IOException {
        for (Path root : directories) {
            if (!Files.exists(root)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
        directories.clear();
    }
}
