package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

/**
 * The tables of the edge-case probes ({@link StorageEdgeProbeTest}, {@link TimeTaskProbeTest}): each probe's
 * outcome under its name, checked against the outcome the javadoc promises, the same on every runtime.
 */
final class ProbeTables {
    private ProbeTables() {
    }

    /**
     * Prints every row (marking those that differ from what the javadoc promises) and asserts the whole table.
     *
     * @param rt the runtime the table was made on, named in the printed rows
     * @param expected the outcomes the javadoc promises, by probe
     * @param actual the outcomes seen, by probe
     */
    static void assertTable(Runtimes rt, Map<String, String> expected, Map<String, String> actual) {
        StringBuilder report = new StringBuilder();
        for (Map.Entry<String, String> row : actual.entrySet()) {
            String want = expected.get(row.getKey());
            boolean same = row.getValue().equals(want);
            report.append(same ? "  " : "!!").append(' ').append(rt.config().displayName()).append(' ')
                    .append(row.getKey()).append(" -> ").append(row.getValue())
                    .append(same ? "" : "   (javadoc: " + want + ")").append('\n');
        }
        System.out.print(report);
        assertEquals(expected, actual, report.toString());
    }
}
