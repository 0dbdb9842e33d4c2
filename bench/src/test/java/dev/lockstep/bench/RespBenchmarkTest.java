package dev.lockstep.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RESP bench's servers are stand-in scripts here: what is checked is what the bench leaves on disk. */
class RespBenchmarkTest {
    /** What both stand-in servers do first: find their --dir and write 64 KiB of data into it. */
    private static final String WRITES_INTO_DIR = """
            #!/bin/sh
            while [ $# -gt 0 ]; do
              if [ "$1" = --dir ]; then dir="$2"; fi
              shift
            done
            head -c 65536 /dev/zero > "$dir/appendonly.aof"
            """;
    /** A server that writes into its --dir, says it is ready (both servers' markers) and waits to be stopped. */
    private static final String SERVER = WRITES_INTO_DIR + """
            echo "READY Ready to accept connections"
            exec sleep 120
            """;
    private static final String FAILING_SERVER = WRITES_INTO_DIR + """
            echo "no such option"
            exit 1
            """;
    private static final String CLIENT = """
            #!/bin/sh
            echo '"SET","1000.0","0.1","0.1","0.1","0.1","0.2"'
            """;

    @Test
    void closingTheBenchDeletesEveryServersDataDirectory(@TempDir Path tools, @TempDir Path data) throws IOException {
        String server = script(tools, "server", SERVER);
        RespBenchmark resp = new RespBenchmark(data, server, server, script(tools, "client", CLIENT), true);
        try {
            List<Bench.Variant> variants = resp.comparisons().getFirst().variants();
            for (Bench.Variant variant : variants) {
                assertEquals(1000.0, variant.run.get().opsPerSecond(), variant.name);
            }
            assertEquals(2, entries(data).size(), "a data directory per server while they run: " + entries(data));
        } finally {
            resp.close();
        }
        assertEquals(List.of(), entries(data), "data directories left after the servers stopped");
    }

    @Test
    void aServerThatFailsToStartLeavesNoDataDirectory(@TempDir Path tools, @TempDir Path data) throws IOException {
        String server = script(tools, "server", FAILING_SERVER);
        RespBenchmark resp = new RespBenchmark(data, server, server, script(tools, "client", CLIENT), true);
        try {
            IllegalStateException failure = assertThrows(IllegalStateException.class,
                    () -> resp.comparisons().getFirst().variants().getFirst().run.get());
            assertTrue(failure.getMessage().contains("no such option"), failure.getMessage());
        } finally {
            resp.close();
        }
        assertEquals(List.of(), entries(data), "data directories left after a failed start");
    }

    private static String script(Path dir, String name, String text) throws IOException {
        Path script = dir.resolve(name);
        Files.writeString(script, text);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script.toString();
    }

    private static List<Path> entries(Path dir) throws IOException {
        try (Stream<Path> paths = Files.list(dir)) {
            return paths.toList();
        }
    }
}
