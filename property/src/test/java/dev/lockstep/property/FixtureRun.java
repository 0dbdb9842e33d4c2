package dev.lockstep.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs a fixture class of this module's tests through the JUnit Platform, as a user's build runs a property, and
 * collects how each of its tests finished. The fixtures are nested classes whose names match no build pattern, so
 * only this runs them.
 */
final class FixtureRun {
    /** One finished test: its display name and its result. */
    record Finished(String name, TestExecutionResult result) {
    }

    private FixtureRun() {
    }

    /** Runs every test of {@code fixture}; their outcomes, in the order they finished. */
    static List<Finished> run(Class<?> fixture) {
        List<Finished> finished = new ArrayList<>();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(fixture))
                .build(), new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        if (id.isTest()) {
                            finished.add(new Finished(id.getDisplayName(), result));
                        }
                    }
                });
        return finished;
    }

    /** Runs {@code fixture}, which must have exactly one test; its outcome. */
    static Finished only(Class<?> fixture) {
        List<Finished> finished = run(fixture);
        assertEquals(1, finished.size(), finished::toString);
        return finished.getFirst();
    }
}
