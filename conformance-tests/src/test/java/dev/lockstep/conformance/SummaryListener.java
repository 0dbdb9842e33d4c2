package dev.lockstep.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints one summary line per runtime configuration when the suite ends — {@code conformance [uring workers=2]:
 * 180 passed, 0 failed, 3 disabled} — and writes them to {@code target/conformance-summary.txt}. Runs that are
 * not per configuration (the properties, the differential test, which run every runtime inside one case)
 * are counted under {@code [both runtimes]}. Registered through {@code META-INF/services}.
 */
public final class SummaryListener implements TestExecutionListener {
    private static final String BOTH = "[both runtimes]";
    private final Map<String, int[]> counts = new LinkedHashMap<>();

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        counts.clear();
        for (RuntimeConfig config : RuntimeConfig.ALL) {
            counts.put(config.displayName(), new int[3]);
        }
        counts.put(BOTH, new int[3]);
    }

    private int[] bucket(TestIdentifier test) {
        int[] bucket = counts.get(test.getDisplayName());
        return bucket != null ? bucket : counts.get(BOTH);
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        if (test.isTest()) {
            bucket(test)[2]++;
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (!test.isTest()) {
            return;
        }
        int[] bucket = bucket(test);
        if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
            bucket[0]++;
        } else if (result.getStatus() == TestExecutionResult.Status.FAILED) {
            bucket[1]++;
        } else {
            bucket[2]++;
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        StringBuilder summary = new StringBuilder();
        counts.forEach((name, c) -> {
            if (c[0] + c[1] + c[2] > 0) {
                summary.append("conformance ").append(name).append(": ").append(c[0]).append(" passed, ")
                        .append(c[1]).append(" failed, ").append(c[2]).append(" disabled\n");
            }
        });
        if (summary.isEmpty()) {
            return;
        }
        System.out.print("\n" + summary);
        try {
            Path target = Path.of("target");
            if (Files.isDirectory(target)) {
                Files.writeString(target.resolve("conformance-summary.txt"), summary);
            }
        } catch (IOException ignored) {
            // The console already has the summary.
        }
    }
}
