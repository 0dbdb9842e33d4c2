package dev.lockstep.testing;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** Runs a fixture class through the JUnit Platform and collects what each test did. */
final class Launch {
    /** One finished test: its display name, status and failure. */
    record Finished(String name, TestExecutionResult.Status status, Throwable failure) {
    }

    final List<Finished> finished = new ArrayList<>();
    /** Containers (a class, a test method's template) that failed on their own, as a bad annotation value does. */
    final List<Finished> failedContainers = new ArrayList<>();
    final List<ReportEntry> reports = new ArrayList<>();

    static Launch run(Class<?> fixture) {
        return run(Map.of(), selectClass(fixture));
    }

    /** Runs what {@code selectors} select, with these JUnit configuration parameters. */
    static Launch run(Map<String, String> parameters, DiscoverySelector... selectors) {
        Launch launch = new Launch();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors)
                .configurationParameters(parameters).build();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                Finished done = new Finished(id.getDisplayName(), result.getStatus(),
                        result.getThrowable().orElse(null));
                if (id.isTest()) {
                    launch.finished.add(done);
                } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    launch.failedContainers.add(done);
                }
            }

            @Override
            public void reportingEntryPublished(TestIdentifier id, ReportEntry entry) {
                launch.reports.add(entry);
            }
        });
        return launch;
    }

    List<String> names() {
        return finished.stream().map(Finished::name).toList();
    }

    List<Finished> failed() {
        return finished.stream().filter(f -> f.status() != TestExecutionResult.Status.SUCCESSFUL).toList();
    }
}
