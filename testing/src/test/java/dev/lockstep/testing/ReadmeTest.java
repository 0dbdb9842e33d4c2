package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.testing.example.FirstProgram;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's examples are these files, so they cannot drift: its first program is
 * {@code example/FirstProgram.java} (run here), its test example is {@code example/JournalTest.java} (run by the
 * build), its cluster example {@code example/ClusterTest.java} (run by the build), its manifest {@code example/Manifest.java}'s
 * {@code replace} (run by {@code ManifestTest}), and its Maven snippet has this build's version and JVM flags.
 */
class ReadmeTest {
    private static final Path ROOT = Path.of("..");

    private static String readme() throws IOException {
        return Files.readString(ROOT.resolve("README.md"));
    }

    /** The first {@code lang} code block after {@code heading}. */
    private static String block(String readme, String heading, String lang) {
        int at = readme.indexOf(heading);
        assertTrue(at >= 0, "README has no '" + heading + "'");
        Matcher block = Pattern.compile("```" + lang + "\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(at), "no ```" + lang + " block after '" + heading + "'");
        return block.group(1);
    }

    /** A source file as the README prints it: everything after its package line. */
    private static String source(String name) throws IOException {
        String text = Files.readString(Path.of("src/test/java/dev/lockstep/testing/example", name));
        return text.substring(text.indexOf("\n\n") + 2);
    }

    @Test
    void theFirstProgramIsFirstProgramJavaAndRunsOnBothRuntimes(@TempDir Path data) throws Exception {
        assertEquals(source("FirstProgram.java"), block(readme(), "## A first program", "java"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            FirstProgram.main(new String[] {data.toString()});
        } finally {
            System.setOut(original);
        }
        assertEquals("runtime-uring: hello, lockstep\nruntime-sim:   hello, lockstep\n",
                out.toString(StandardCharsets.UTF_8));
    }

    /**
     * The README's failing run is what {@code BuggyJournalFixture} prints on this simulator, seed, failure, replay
     * text and audit digest alike: an audit-format change that moves the digest fails here, not in a reader's hands.
     */
    @Test
    void theFailingExampleIsWhatTheBuggyFixturePrints() throws Exception {
        Launch launch = Launch.run(Class.forName("dev.lockstep.testing.example.BuggyJournalFixture"));
        assertTrue(!launch.failed().isEmpty(), "the fixture with its sync forgotten failed no seed");
        var first = launch.failed().getFirst();
        assertEquals(block(readme(), "Now forget the `sync()`", ""),
                first.name() + "\n" + first.failure().getMessage() + "\n");
    }

    @Test
    void theTestExampleIsJournalTestJava() throws Exception {
        assertEquals(source("JournalTest.java"), block(readme(), "The test states exactly that", "java"));
    }

    @Test
    void theClusterExampleIsClusterTestJava() throws Exception {
        assertEquals(source("ClusterTest.java"), block(readme(), "an acknowledged entry survives anything", "java"));
    }

    @Test
    void theManifestExampleIsManifestJava() throws Exception {
        String quoted = block(readme(), "## Replacing a blob crash-safely", "java");
        String indented = quoted.lines().map(line -> line.isEmpty() ? line : "    " + line)
                .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        assertTrue(source("Manifest.java").contains(indented), "README's replace is not Manifest.replace:\n" + quoted);
    }

    @Test
    void theSteeringExampleIsSegmentedLogJava() throws Exception {
        String source = source("SegmentedLog.java");
        assertTrue(containsLines(source, block(readme(), "## Steering the search", "java")),
                "README's append is not SegmentedLog.append");
        assertTrue(containsLines(source, block(readme(), "Recovery states what a sweep should reach", "java")),
                "README's recovery lines are not SegmentedLog.open's");
    }

    /** Whether {@code block}'s lines, each without its indentation, are consecutive lines of {@code source}. */
    private static boolean containsLines(String source, String block) {
        java.util.List<String> lines = source.lines().map(String::strip).toList();
        java.util.List<String> wanted = block.lines().map(String::strip).toList();
        return java.util.Collections.indexOfSubList(lines, wanted) >= 0;
    }

    @Test
    void theMavenSnippetHasThisBuildsVersionAndJvmFlags() throws Exception {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        Matcher version = Pattern.compile("<artifactId>lockstep-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(parent);
        assertTrue(version.find());
        Matcher flags = Pattern.compile("<lockstep.jvm.flags>([^<]+)</lockstep.jvm.flags>").matcher(parent);
        assertTrue(flags.find());
        String snippet = block(readme(), "## Using Lockstep in your build", "xml");
        assertTrue(snippet.contains("<artifactId>lockstep-testing</artifactId>\n    <version>" + version.group(1)
                + "</version>"), snippet);
        assertTrue(snippet.contains("<argLine>" + flags.group(1) + "</argLine>"), snippet);
    }
}
