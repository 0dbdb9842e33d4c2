package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Listener;
import dev.lockstep.demo.kv.KvServer;
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
        KvStore.Options options = KvStore.Options.defaults("kv").withSegmentBytes(4096);
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
            ctx.sleep(Duration.ofSeconds(1));
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
}
