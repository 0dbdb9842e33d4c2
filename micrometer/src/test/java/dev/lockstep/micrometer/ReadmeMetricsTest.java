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

/** The README's "Metrics and JFR" example is {@code example/MetricsExample.java}, and it counts what it wrote. */
class ReadmeMetricsTest {
    @Test
    void theReadmeExampleIsMetricsExampleJavaAndCountsTheBytesItWrote(@TempDir Path data) throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int at = readme.indexOf("## Metrics and JFR");
        assertTrue(at >= 0, "README has no '## Metrics and JFR'");
        Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(at), "no java block after '## Metrics and JFR'");
        String source = Files.readString(Path.of("src/test/java/dev/lockstep/micrometer/example/MetricsExample.java"));
        assertEquals(source.substring(source.indexOf("\n\n") + 2), block.group(1));

        assertEquals(4096, MetricsExample.bytesWritten(data));
    }
}
