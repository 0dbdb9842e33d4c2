package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Context;
import dev.lockstep.uring.UringRunner;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's cluster in production: the same {@link LogServer#node} task, one process per node on io_uring, each
 * with its own data directory and loopback port. One node is killed with {@code SIGKILL} while the others serve,
 * started again on its directory, and every acknowledged entry of every node is read back.
 */
class ClusterProcessesTest {
    private static final int NODES = 3;
    private static final int ENTRIES = 20;
    /** How long a node process may take to start listening on a loaded machine. */
    private static final Duration READY_WITHIN = Duration.ofSeconds(40);

    @Test
    @Timeout(150)
    void aKilledNodeProcessComesBackWithEveryAcknowledgedEntry(@TempDir Path base) throws Exception {
        List<InetSocketAddress> nodes = new ArrayList<>();
        List<Process> processes = new ArrayList<>();
        try {
            for (int id = 1; id <= NODES; id++) {
                nodes.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), freePort()));
                processes.add(start(base, id, nodes.getLast()));
            }
            long[][] acknowledged = new long[NODES][ENTRIES * 2];
            UringRunner.builder().workers(1).build().start(ctx -> {
                for (int node = 0; node < NODES; node++) {
                    awaitReady(ctx, nodes.get(node), base, node + 1);
                    for (int i = 0; i < ENTRIES; i++) {
                        acknowledged[node][i] = value(node, i);
                        assertEquals(i, LogServer.call(ctx, nodes.get(node), 'A', value(node, i)));
                    }
                }
                return null;
            });

            Process killed = processes.get(1);
            killed.destroyForcibly();                       // SIGKILL: no shutdown code runs
            assertTrue(killed.waitFor(30, TimeUnit.SECONDS), "node 2 did not die");
            UringRunner.builder().workers(1).build().start(ctx -> {
                for (int node : new int[] {0, 2}) {        // the others keep serving
                    for (int i = ENTRIES; i < 2 * ENTRIES; i++) {
                        acknowledged[node][i] = value(node, i);
                        assertEquals(i, LogServer.call(ctx, nodes.get(node), 'A', value(node, i)));
                    }
                }
                return null;
            });

            processes.set(1, start(base, 2, nodes.get(1)));  // the same directory, the same port
            UringRunner.builder().workers(1).build().start(ctx -> {
                awaitReady(ctx, nodes.get(1), base, 2);
                for (int node = 0; node < NODES; node++) {
                    int entries = node == 1 ? ENTRIES : 2 * ENTRIES;
                    for (int i = 0; i < entries; i++) {
                        assertEquals(acknowledged[node][i], LogServer.call(ctx, nodes.get(node), 'R', i),
                                "node " + (node + 1) + " entry " + i);
                    }
                }
                assertEquals(-1, LogServer.call(ctx, nodes.get(1), 'R', ENTRIES), "node 2 has nothing more");
                return null;
            });
        } finally {
            for (Process process : processes) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static long value(int node, int index) {
        return (node + 1) * 1_000_000L + index;
    }

    private static Process start(Path base, int id, InetSocketAddress address) throws IOException {
        Path data = base.resolve("node-" + id);
        Files.createDirectories(data);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-ea", "--enable-native-access=ALL-UNNAMED", "--add-opens",
                "java.base/java.lang=ALL-UNNAMED",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), LogServer.class.getName(),
                address.getAddress().getHostAddress(), Integer.toString(address.getPort()), data.toString()));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("node-" + id + ".log").toFile()))
                .start();
    }

    /** Dials until the node listens; a node that does not within the bound fails the test with its log. */
    private static void awaitReady(Context ctx, InetSocketAddress node, Path base, int id) {
        long tries = READY_WITHIN.toMillis() / 50;
        for (long attempt = 0; ; attempt++) {
            try {
                ctx.dial(node).await().close();
                return;
            } catch (ConnectionFailedException notYet) {
                if (attempt == tries) {
                    throw new AssertionError("node " + id + " did not listen at " + node + " within " + READY_WITHIN
                            + "; its log: " + log(base, id), notYet);
                }
                ctx.sleep(Duration.ofMillis(50));
            }
        }
    }

    private static String log(Path base, int id) {
        try {
            return Files.readString(base.resolve("node-" + id + ".log"), StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            return "(unreadable: " + unreadable + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }
}
