package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Listener;
import dev.lockstep.demo.kv.KvServer;
import dev.lockstep.demo.kv.KvOptions;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service and the load generator on runtime-uring over loopback, stopped by abandoning every task in the
 * middle of the load (no close, no final sync), then every key checked after reopening: parts 1 and 2 of the
 * demo, in one JVM and for one second.
 */
class UringServiceTest {

    @Test
    void everyAcknowledgedWriteSurvivesAnAbandonedRun(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Model model = new Model(8, 16, 64);
        LoadClient.Meter meter = new LoadClient.Meter(true);
        LoadClient.Shape shape = new LoadClient.Shape(60, 5, Duration.ofSeconds(5), Duration.ofMillis(10),
                Duration.ZERO);
        KvOptions options = KvOptions.defaults("kv").withSegmentBytes(4096);
        UringRunner.builder().workers(2).ringEntries(1024).storage(data).build().start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
            KvServer server = new KvServer(options, line -> { });
            ctx.child("server").spawnOn(0, c -> server.serve(c, listener));
            while (server.store() == null) {
                ctx.sleep(Duration.ofMillis(1));
            }
            for (int i = 0; i < 8; i++) {
                int client = i;
                ctx.child("client" + i).spawnOn(i % 2, c -> new LoadClient(c, listener.localAddress(),
                        model.client(client), shape, new SplittableRandom(client), meter, System::nanoTime, null)
                        .run());
            }
            // Until the store has committed 100 puts (its counters are read under its lock), however slow the
            // machine's syncs: each client has one request in flight, so at least 92 were acknowledged.
            while (server.store().stats().puts() < 100) {
                ctx.sleep(Duration.ofMillis(10));
            }
            return null; // abandon: every task is aborted mid-request
        });
        assertTrue(model.ackedPuts() > 50, "only " + model.ackedPuts() + " puts were acknowledged");
        UringRunner.builder().workers(1).storage(data).build().start(ctx -> {
            try (KvStore store = KvStore.open(ctx, options)) {
                for (int c = 0; c < model.clients(); c++) {
                    Model.Client client = model.client(c);
                    for (int k = 0; k < client.keys(); k++) {
                        client.check(k, store.get(client.key(k)), "after restart");
                    }
                }
            }
            return null;
        });
        assertEquals(java.util.List.of(), model.violations());
    }

    /**
     * The service in its own JVM under an open-file limit of 96, sent 150 connections at once: its accepts fail
     * with EMFILE while they are open. Once they close, a new connection is accepted and served (a put, then a
     * get of it): the service kept its listener and accepted again, where it used to stop serving for good.
     */
    @Test
    void aServiceOutOfDescriptorsServesAgainOnceConnectionsClose(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("sh", "-c",
                "ulimit -n 96 && exec \"$@\"", "sh"));
        command.addAll(Main.javaCommand("serve", data.toString(), "1", "none"));
        Path log = dir.resolve("server.log");
        Process server = new ProcessBuilder(command).redirectError(log.toFile()).start();
        try (java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                server.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
            String ready = lines.readLine();
            assertTrue(ready != null && ready.startsWith("READY "), "the service did not start: " + ready
                    + "\n" + Files.readString(log));
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    Integer.parseInt(ready.split(" ")[1]));
            // Every class the service needs is loaded before it runs out of descriptors: from a classes directory
            // (as under Maven) a class loaded at the limit cannot be opened. So one request first, and one STATS line.
            assertEquals("[7]", putAndGet(address, "before-the-flood", (byte) 7));
            String stats = lines.readLine();
            assertTrue(stats != null && stats.startsWith("STATS "), "no STATS line: " + stats);
            java.util.List<java.net.Socket> flood = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 150; i++) {
                    flood.add(new java.net.Socket(address.getAddress(), address.getPort()));
                }
                // The service at its limit: its next accept fails. (Its descriptors, counted from outside.)
                Path fds = Path.of("/proc", Long.toString(server.pid()), "fd");
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                long open = 0;
                while (System.nanoTime() < deadline) {
                    try (java.util.stream.Stream<Path> listing = Files.list(fds)) {
                        open = listing.count();
                    }
                    if (open >= 95) {
                        break;
                    }
                    Thread.sleep(20);
                }
                assertTrue(open >= 95, "the service holds only " + open + " descriptors");
                Thread.sleep(200); // accepts fail meanwhile
            } finally {
                for (java.net.Socket socket : flood) {
                    socket.close();
                }
            }
            assertEquals("[42]", putAndGet(address, "after-the-flood", (byte) 42));
            String events = Files.readString(log);
            assertTrue(events.contains("EMFILE") && events.contains("accepting again after"), events);
        } finally {
            server.destroyForcibly();
            server.waitFor();
        }
    }

    /** A put of {@code value} under {@code key} and a get of it, on a connection of its own: what the get read. */
    private static String putAndGet(InetSocketAddress address, String key, byte value) {
        java.util.concurrent.atomic.AtomicReference<String> got = new java.util.concurrent.atomic.AtomicReference<>();
        UringRunner.builder().workers(1).build().start(ctx -> {
            try (dev.lockstep.demo.kv.KvClient client = dev.lockstep.demo.kv.KvClient.connect(ctx, address)) {
                byte[] bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                assertEquals(dev.lockstep.demo.kv.Protocol.OK, client.put(bytes, new byte[] {value}).status());
                got.set(java.util.Arrays.toString(client.get(bytes).payload()));
            }
            return null;
        });
        return got.get();
    }
}
