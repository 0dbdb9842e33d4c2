package dev.lockstep.demo.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Listener;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimRunner;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The service under the simulator when its process runs out of descriptors: accepts fail with EMFILE while 40
 * connections are held open under a limit of 49, and once they close the service accepts and serves again. The
 * same check as {@code UringServiceTest}'s flood, decided by a seed instead of a real process limit. Dialer and
 * server share the simulated process, each connection taking one descriptor on each side, so the limit is set for
 * the server's accept to be the call that runs out, not the dial (the store holds its manifest, its segment and
 * the segment opened ahead for its next roll).
 */
class KvServerTest {

    @Test
    void theServiceServesAgainOnceDescriptorsAreFree() {
        for (long seed = 1; seed <= 5; seed++) {
            List<String> events = new ArrayList<>();
            String got = SimRunner.of(SimConfig.builder().seed(seed).workers(2).openFileLimit(49).build()).start(ctx -> {
                SimControl sim = SimRunner.control(ctx);
                InetSocketAddress address = new InetSocketAddress(sim.host(1), 7000);
                Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
                KvServer server = new KvServer(KvOptions.defaults("kv"), events::add);
                var serving = ctx.child("server").spawnOn(1, c -> server.serve(c, listener));
                while (server.store() == null) {
                    ctx.sleep(Duration.ofMillis(1));
                }
                List<Connection> flood = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    try {
                        flood.add(ctx.dial(address).await());
                    } catch (ConnectionFailedException full) {
                        // this side out of descriptors too: the two share one simulated process
                    }
                }
                ctx.sleep(Duration.ofMillis(200));
                for (Connection connection : flood) {
                    connection.close();
                }
                ctx.sleep(Duration.ofMillis(200));
                String value;
                try (KvClient client = KvClient.connect(ctx, address)) {
                    byte[] key = "after".getBytes(StandardCharsets.UTF_8);
                    assertEquals(Protocol.OK, client.put(key, new byte[] {9}).status());
                    value = Arrays.toString(client.get(key).payload());
                }
                serving.abort();
                return value;
            });
            assertEquals("[9]", got, "seed " + seed);
            String all = String.join("\n", events);
            assertTrue(all.contains("EMFILE") && all.contains("accepting again after"), "seed " + seed + ": " + all);
        }
    }
}
