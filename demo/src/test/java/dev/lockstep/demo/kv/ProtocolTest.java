package dev.lockstep.demo.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.sim.SimRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The record format and the wire protocol, and the server end to end. */
class ProtocolTest {

    @Test
    void recordsRoundTripAndTornRecordsAreRejected() {
        byte[] key = "key".getBytes(StandardCharsets.UTF_8);
        byte[] record = Records.encode(Records.PUT, 42, key, new byte[] {1, 2, 3});
        Records.Decoded decoded = Records.decode(record, 0, record.length, true);
        assertEquals(42, decoded.sequence());
        assertArrayEquals(key, decoded.key());
        assertEquals(3, decoded.valueLength());
        assertNull(Records.decode(record, 0, record.length - 1, true));
        byte[] flipped = record.clone();
        flipped[record.length - 1] ^= 1;
        assertNull(Records.decode(flipped, 0, flipped.length, true));
        byte[] zeros = Arrays.copyOf(record, record.length);
        Arrays.fill(zeros, 20, zeros.length, (byte) 0);
        assertNull(Records.decode(zeros, 0, zeros.length, true));
        assertEquals(7, Records.segmentIdOf(Records.segmentName(7)));
    }

    @Test
    void serverServesPutGetDeleteAndRejectsMalformedFrames() {
        SimRunner.seeded(11).start(ctx -> {
            Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 7000)).await();
            KvServer server = new KvServer(KvOptions.defaults("kv"), line -> { });
            ctx.child("server").spawn(c -> server.serve(c, listener));
            while (server.store() == null) {
                ctx.sleep(java.time.Duration.ofMillis(1));
            }
            try (KvClient client = KvClient.connect(ctx, listener.localAddress())) {
                byte[] key = "k".getBytes(StandardCharsets.UTF_8);
                assertEquals(Protocol.NOT_FOUND, client.get(key).status());
                assertEquals(Protocol.OK, client.put(key, "v".getBytes(StandardCharsets.UTF_8)).status());
                assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), client.get(key).payload());
                assertEquals(Protocol.OK, client.delete(key).status());
                assertEquals(Protocol.NOT_FOUND, client.get(key).status());
            }
            try (Connection raw = ctx.dial(listener.localAddress()).await()) {
                raw.sink().send(new byte[] {5, 0, 0, 0, 9, 1, 0, 0, 0}).await();
                assertEquals(Protocol.BAD_REQUEST, Protocol.readResponse(raw.stream()).status());
            }
            return null;
        });
    }
}
