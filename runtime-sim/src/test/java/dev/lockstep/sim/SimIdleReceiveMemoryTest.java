package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.spi.Meter;
import dev.lockstep.spi.MetricsSink;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Idle connections in the simulator hold no receive buffer each, as on runtime-uring with provided buffers: a
 * {@code recv} that waits for data reserves no memory of its worker's buffer pool until bytes arrive, because the
 * simulated ring selects a buffer of its own when they do. What a user relies on: the memory of a server with many
 * idle connections is bounded by what arrived, in tests as in production, and every byte still arrives.
 */
class SimIdleReceiveMemoryTest {
    private static final int CONNECTIONS = 64;
    /** Less than one pool chunk per waiting receive: waiting receives that each held one would reserve 1 MiB. */
    private static final long MOST_GROWTH = 64 * 1024;

    @Test
    void receivesWaitingForDataReservePoolMemoryOnlyForWhatArrived() {
        List<Meter> meters = new CopyOnWriteArrayList<>();
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(11).workers(1).build()).metrics(new MetricsSink() {
            @Override
            public void runStarted(List<Meter> started) {
                meters.addAll(started);
            }
        });
        runner.start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
            List<Connection> clients = new ArrayList<>();
            List<Connection> servers = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                Operation<Connection> accepted = listener.accept();
                clients.add(ctx.dial(listener.localAddress()).await());
                servers.add(accepted.await());
            }
            ctx.sleep(Duration.ofMillis(10));
            long before = reserved(meters);
            List<Handle<byte[]>> receives = new ArrayList<>();
            for (Connection server : servers) {
                receives.add(ctx.child("receive").spawn(c -> server.stream().recv(64).await()));
            }
            // Every receive reaches the ring and waits there (nothing was sent); the measurement below means
            // something only once all of them do.
            for (int step = 0; step < 100 && gauge(meters, "lockstep.requests.inflight") < CONNECTIONS; step++) {
                ctx.sleep(Duration.ofMillis(1));
            }
            long inFlight = gauge(meters, "lockstep.requests.inflight");
            assertTrue(inFlight >= CONNECTIONS, "only " + inFlight + " requests in flight, not the " + CONNECTIONS
                    + " receives");
            long waiting = reserved(meters) - before;
            assertTrue(waiting < MOST_GROWTH, CONNECTIONS + " waiting receives reserved " + waiting
                    + " bytes of pool memory");
            for (int i = 0; i < CONNECTIONS; i++) {
                clients.get(i).sink().send(message(i)).await();
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                assertArrayEquals(message(i), receives.get(i).await(), "connection " + i);
            }
            clients.forEach(Connection::close);
            servers.forEach(Connection::close);
            listener.close();
            return null;
        });
    }

    private static long reserved(List<Meter> meters) {
        return gauge(meters, "lockstep.buffers.reserved");
    }

    /** The gauge {@code name} summed over the workers. */
    private static long gauge(List<Meter> meters, String name) {
        long sum = 0;
        for (Meter meter : meters) {
            if (meter instanceof Meter.Gauge gauge && gauge.name().equals(name)) {
                sum += gauge.value().getAsLong();
            }
        }
        assertTrue(!meters.isEmpty(), "the run reported its meters");
        return sum;
    }

    private static byte[] message(int connection) {
        byte[] message = new byte[64];
        java.util.Arrays.fill(message, (byte) connection);
        return message;
    }
}
