package dev.lockstep.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;

/**
 * The report of one {@link SimulationTest} method's sweep, written when JUnit is done with the method (this object
 * sits in the method's extension store, which closes it): a text file {@code CLASS#METHOD.txt} (or
 * {@code CLASS#METHOD-shard-K-of-N.txt}) in the directory {@code lockstep.report} names, saying what was swept and
 * how each run ended, with each failure's replay text on a line of its own after {@code replay: }.
 *
 * <p>Filled on the thread that runs JUnit's invocations of the method, one after another; its methods are
 * synchronized in case JUnit runs them elsewhere. Memory: a line per failure.
 */
final class SweepSummary implements AutoCloseable {
    private final String testName;
    private final SweepSettings settings;
    private final SimulationExtension.MethodRuns runs;
    private int passed;
    private int failed;
    private int notRun;
    private final List<String> failures = new ArrayList<>();

    SweepSummary(Class<?> testClass, String methodName, SweepSettings settings, SimulationExtension.MethodRuns runs) {
        this.testName = testClass.getName() + "#" + methodName;
        this.settings = settings;
        this.runs = runs;
    }

    /** The report's file name in its directory. */
    String fileName() {
        return testName + (settings.shard().count() == 1 ? ""
                : "-shard-" + settings.shard().index() + "-of-" + settings.shard().count()) + ".txt";
    }

    synchronized void passed() {
        passed++;
    }

    synchronized void notRun() {
        notRun++;
    }

    synchronized void failed(Throwable failure) {
        failed++;
        String text = failure instanceof SimulationTestFailure ? failure.getMessage() : String.valueOf(failure);
        String first = String.valueOf(text).lines().findFirst().orElse("");
        if (failure instanceof SimulationTestFailure simulated && simulated.replay() != null) {
            failures.add("failed: " + first + "\n  replay: " + simulated.replay()
                    + (simulated.digest() == null ? "" : "\n  digest: " + simulated.digest()));
        } else {
            failures.add("failed: " + first);
        }
    }

    /** The report's text. */
    synchronized String text() {
        StringBuilder text = new StringBuilder();
        text.append("sweep of ").append(testName).append('\n');
        if (settings.replay() != null) {
            text.append("replay: ").append(settings.replay()).append('\n');
        } else {
            text.append("strategy: ").append(settings.strategy().name()).append('\n');
            text.append("seeds: ").append(settings.seeds()).append(" from ").append(settings.firstSeed()).append('\n');
            text.append("shard: ").append(settings.shard()).append('\n');
            text.append("stop at first failure: ").append(settings.stopAtFirstFailure()).append('\n');
        }
        text.append("runs: ").append(passed + failed).append(" made, ").append(passed).append(" passed, ")
                .append(failed).append(" failed, ").append(notRun).append(" not run\n");
        SortedSet<String> never = runs.neverSatisfied();
        if (!never.isEmpty()) {
            text.append("sometimes never true: ").append(String.join(", ", never)).append('\n');
        }
        for (String failure : failures) {
            text.append(failure).append('\n');
        }
        return text.toString();
    }

    /**
     * Writes the report.
     *
     * @throws UncheckedIOException naming the file when it cannot be written
     */
    @Override
    public void close() {
        Path file = settings.report().resolve(fileName());
        try {
            Files.createDirectories(settings.report());
            Files.writeString(file, text(), StandardCharsets.UTF_8);
        } catch (IOException unwritable) {
            throw new UncheckedIOException("the sweep report " + file + " cannot be written: " + unwritable,
                    unwritable);
        }
    }
}
