package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.demo.raft.RaftClient;
import dev.lockstep.demo.raft.RaftUnavailableException;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Raft in production: three {@link RaftProcess}es on runtime-uring, loopback only, each with its own data
 * directory. Commands are appended through the leader; the leader is killed with {@code SIGKILL}; the two left elect
 * a new leader, take more commands, and every acknowledged command is still committed at the index it was
 * acknowledged at.
 */
class RaftProcessesTest {
    private static final int NODES = 3;
    private static final int COMMANDS = 10;
    /** How long the cluster may take to elect a leader and commit, on a loaded machine. */
    private static final Duration SETTLE_WITHIN = Duration.ofSeconds(40);

    @Test
    @Timeout(180)
    void aKilledLeaderIsReplacedAndNoAcknowledgedCommandIsLost(@TempDir Path base) throws Exception {
        List<InetSocketAddress> members = new ArrayList<>();
        for (int id = 1; id <= NODES; id++) {
            members.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), freePort()));
        }
        List<Process> processes = new ArrayList<>();
        try {
            for (int id = 1; id <= NODES; id++) {
                processes.add(start(base, id, members));
            }
            Map<Long, Long> acknowledged = new LinkedHashMap<>();
            int[] leaders = new int[2];
            UringRunner.builder().workers(1).build().start(ctx -> {
                try (RaftClient client = client(members)) {
                    for (long command = 1; command <= COMMANDS; command++) {
                        acknowledged.put(appendPatiently(ctx, client, command, base), command);
                    }
                    leaders[0] = client.leader();
                }
                return null;
            });
            Process killed = processes.get(leaders[0] - 1);
            killed.destroyForcibly();                           // SIGKILL: no shutdown code runs
            assertTrue(killed.waitFor(30, TimeUnit.SECONDS), "the leader, node " + leaders[0] + ", did not die");
            UringRunner.builder().workers(1).build().start(ctx -> {
                try (RaftClient client = client(members)) {
                    for (long command = COMMANDS + 1; command <= 2 * COMMANDS; command++) {
                        acknowledged.put(appendPatiently(ctx, client, command, base), command);
                    }
                    leaders[1] = client.leader();
                    for (Map.Entry<Long, Long> entry : acknowledged.entrySet()) {
                        OptionalLong read = client.read(ctx, entry.getKey());
                        assertEquals(OptionalLong.of(entry.getValue()), read, "entry #" + entry.getKey());
                    }
                }
                return null;
            });
            assertNotEquals(leaders[0], leaders[1], "a new leader took over from the killed one");
            assertEquals(2 * COMMANDS, acknowledged.size(), "every command acknowledged at its own index: "
                    + acknowledged);
        } finally {
            for (Process process : processes) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static RaftClient client(List<InetSocketAddress> members) {
        return new RaftClient(members, Duration.ofMillis(500), Duration.ofMillis(100));
    }

    /**
     * Appends until acknowledged, within {@link #SETTLE_WITHIN}. A try whose outcome was unknown may have appended
     * the command as well; the check reads back the index each acknowledgement named, so that does not matter.
     */
    private static long appendPatiently(Context ctx, RaftClient client, long command, Path base) {
        long deadline = System.nanoTime() + SETTLE_WITHIN.toNanos();
        while (true) {
            try {
                return client.append(ctx, command);
            } catch (RaftUnavailableException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("command " + command + " was not acknowledged within " + SETTLE_WITHIN
                            + "; the nodes' logs: " + logs(base), notYet);
                }
                ctx.sleep(Duration.ofMillis(100));
            }
        }
    }

    private static Process start(Path base, int id, List<InetSocketAddress> members) throws IOException {
        Path data = base.resolve("node-" + id);
        Files.createDirectories(data);
        String list = members.stream().map(m -> m.getAddress().getHostAddress() + ":" + m.getPort())
                .collect(Collectors.joining(","));
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-ea",
                "--enable-native-access=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                RaftProcess.class.getName(), Integer.toString(id), data.toString(), list);
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("node-" + id + ".log").toFile()))
                .start();
    }

    private static String logs(Path base) {
        StringBuilder all = new StringBuilder();
        for (int id = 1; id <= NODES; id++) {
            try {
                all.append("\nnode ").append(id).append(": ")
                        .append(Files.readString(base.resolve("node-" + id + ".log"), StandardCharsets.UTF_8));
            } catch (IOException unreadable) {
                all.append("\nnode ").append(id).append(": (unreadable: ").append(unreadable).append(')');
            }
        }
        return all.toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }
}
