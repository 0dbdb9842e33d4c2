package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lockstep.property.Property;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * The README's conformance table and its totals are the suite's: the cases of each {@link ReadmeGroup} row are
 * counted from the {@link Group} of every case, and the table between its header and the totals sentence must be
 * the one those counts make. On a difference the failure prints the table as it should read;
 * {@code -Dlockstep.readme.rewrite=true} writes it into README.md and still fails, so a rewrite is reviewed before it
 * passes.
 */
class ReadmeTableTest {
    /** The system property that makes the test rewrite README.md's table rather than fail. */
    static final String REWRITE = "lockstep.readme.rewrite";
    private static final Path README = Path.of("..", "README.md");
    private static final String HEADER = "| Behaviour group | Cases | Source |";
    private static final Pattern TOTALS = Pattern.compile(
            "The [0-9,]+ `@Conformance` cases make [0-9,]+ runs \\(\\w+ runtime configurations each\\)");
    private static final String[] NUMBER_WORDS = {"no", "one", "two", "three", "four", "five", "six", "seven",
        "eight", "nine", "ten"};

    @Test
    void readmeTableCountsTheSuitesCases() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        String expected = withTable(readme, table(suite()));
        if (expected.equals(readme)) {
            return;
        }
        if (Boolean.getBoolean(REWRITE)) {
            Files.writeString(README, expected, StandardCharsets.UTF_8);
            fail("README.md's conformance table rewritten; review it and rerun without -D" + REWRITE);
        }
        fail("README.md's conformance table is not the suite's (rerun with -D" + REWRITE + "=true to write it);"
                + " it should read:\n" + table(suite()));
    }

    /** A row that does not count what its group has is found and told, as is a total that was not updated. */
    @Test
    void aWrongRowOrTotalIsToldWithTheCorrectedTable() {
        Counts counts = suite();
        String right = table(counts);
        String readme = "# Title\n\nBefore.\n\n" + right + "\nper configuration.\n";
        assertEquals(readme, withTable(readme, right), "a README with the right table is left as it is");
        String row = "| " + ReadmeGroup.CLOCK.behaviour + " | ";
        String wrongRow = readme.replace(row + counts.rows().get(ReadmeGroup.CLOCK) + " |", row + "99 |");
        assertTrue(!wrongRow.equals(readme), "the row was changed");
        assertEquals(readme, withTable(wrongRow, right));
        String wrongTotal = TOTALS.matcher(readme).replaceFirst("The 1 `@Conformance` cases make 5 runs (five runtime"
                + " configurations each)");
        assertEquals(readme, withTable(wrongTotal, right));
        IllegalStateException noTable = assertThrows(IllegalStateException.class,
                () -> withTable("# Title\n", right));
        assertTrue(noTable.getMessage().contains(HEADER), noTable.getMessage());
    }

    /** The cases of each row, and the number of {@link Conformance} cases. */
    record Counts(Map<ReadmeGroup, Integer> rows, int conformanceCases) {
    }

    /** Counts the cases of the suite's classes by row; fails naming every {@link Conformance} case without one. */
    static Counts suite() {
        Map<ReadmeGroup, Integer> rows = new EnumMap<>(ReadmeGroup.class);
        int conformance = 0;
        List<String> ungrouped = new ArrayList<>();
        List<Class<?>> classes = new ArrayList<>(ReflectionSupport.findAllClassesInPackage(
                ReadmeTableTest.class.getPackageName(), type -> true, name -> true));
        classes.sort(Comparator.comparing(Class::getName));
        for (Class<?> type : classes) {
            Group classGroup = type.getAnnotation(Group.class);
            for (Method method : type.getDeclaredMethods()) {
                boolean isConformance = method.isAnnotationPresent(Conformance.class);
                boolean isCase = isConformance || method.isAnnotationPresent(Property.class)
                        || method.isAnnotationPresent(Test.class)
                        || method.isAnnotationPresent(ParameterizedTest.class);
                if (!isCase) {
                    continue;
                }
                Group group = method.isAnnotationPresent(Group.class) ? method.getAnnotation(Group.class) : classGroup;
                if (isConformance) {
                    conformance++;
                    if (group == null) {
                        ungrouped.add(type.getSimpleName() + "." + method.getName());
                    }
                }
                if (group != null) {
                    rows.merge(group.value(), 1, Integer::sum);
                }
            }
        }
        if (!ungrouped.isEmpty()) {
            ungrouped.sort(null);
            fail("@Conformance cases without a @Group, the README row they are counted in: " + ungrouped);
        }
        return new Counts(rows, conformance);
    }

    /** The README's table and totals sentence for {@code counts}; a row without cases is left out. */
    static String table(Counts counts) {
        StringBuilder table = new StringBuilder(HEADER).append("\n|---|---:|---|\n");
        for (ReadmeGroup row : ReadmeGroup.values()) {
            Integer cases = counts.rows().get(row);
            if (cases == null) {
                continue;
            }
            table.append("| ").append(row.behaviour).append(" | ").append(cases)
                    .append(row.note.isEmpty() ? "" : " (" + row.note + ")").append(" | ").append(row.source)
                    .append(" |\n");
        }
        int configurations = RuntimeConfig.ALL.size();
        table.append('\n').append(String.format(Locale.ROOT, "The %,d `@Conformance` cases make %,d runs (%s runtime"
                        + " configurations each)", counts.conformanceCases(), counts.conformanceCases() * configurations,
                configurations < NUMBER_WORDS.length ? NUMBER_WORDS[configurations] : Integer.toString(configurations)));
        return table.toString();
    }

    /**
     * {@code readme} with the text from the table's header to the end of the totals sentence replaced by
     * {@code table}.
     *
     * @throws IllegalStateException naming what is missing if the README has no table header or totals after it
     */
    static String withTable(String readme, String table) {
        int start = readme.indexOf(HEADER);
        if (start < 0) {
            throw new IllegalStateException("README.md has no conformance table: no line '" + HEADER + "'");
        }
        Matcher totals = TOTALS.matcher(readme);
        if (!totals.find(start)) {
            throw new IllegalStateException("README.md's conformance table is not followed by its totals ('"
                    + TOTALS.pattern() + "')");
        }
        return readme.substring(0, start) + table + readme.substring(totals.end());
    }
}
