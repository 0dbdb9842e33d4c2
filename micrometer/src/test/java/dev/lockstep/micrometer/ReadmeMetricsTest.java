package dev.lockstep.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.micrometer.example.MetricsExample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's "Metrics and JFR" example is the body of {@code example/MetricsExample.java}, which counts what it wrote. */
class ReadmeMetricsTest {
    @Test
    void theReadmeExampleIsMetricsExamplesBodyAndCountsTheBytesItWrote(@TempDir Path data) throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int at = readme.indexOf("## Metrics and JFR");
        assertTrue(at >= 0, "README has no '## Metrics and JFR'");
        Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(at), "no java block after '## Metrics and JFR'");
        String source = Files.readString(Path.of("src/test/java/dev/lockstep/micrometer/example/MetricsExample.java"));
        String indented = block.group(1).lines().map(line -> line.isEmpty() ? "" : "        " + line)
                .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        assertTrue(source.contains("SimpleMeterRegistry registry = new SimpleMeterRegistry();\n" + indented
                + "        return written;\n"), "MetricsExample.java's body is not the README's block:\n" + indented);

        assertEquals(4096, MetricsExample.bytesWritten(data));
    }
}
