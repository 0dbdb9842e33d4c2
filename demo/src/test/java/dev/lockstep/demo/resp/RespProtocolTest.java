package dev.lockstep.demo.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.RecvFailedException;
import dev.lockstep.Runner;
import dev.lockstep.demo.kv.KvServer;
import dev.lockstep.demo.kv.KvOptions;
import dev.lockstep.demo.kv.KvStore;
import dev.lockstep.sim.SimConfig;
import dev.lockstep.sim.SimRunner;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store behind the Redis protocol, on the simulator and on runtime-uring, as a RESP client sees it: pipelined
 * requests answered in order, puts of one pipeline sharing a sync, requests one at a time answered in order, a
 * framing error answered and the connection closed, QUIT.
 */
class RespProtocolTest {
    @TempDir
    Path data;

    private static final String PIPELINE = "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$2\r\nv1\r\n"
            + "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
            + "PING\r\n"
            + "*1\r\n$4\r\nNOPE\r\n"
            + "*2\r\n$6\r\nEXISTS\r\n$1\r\na\r\n"
            + "*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$7\r\nmissing\r\n"
            + "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
            + "*2\r\n$3\r\nSET\r\n$1\r\na\r\n"
            + "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n";
    private static final String REPLIES = "+OK\r\n$2\r\nv1\r\n+PONG\r\n-ERR unknown command 'NOPE'\r\n:1\r\n:1\r\n"
            + "$-1\r\n-ERR wrong number of arguments for 'set' command\r\n*2\r\n$4\r\nsave\r\n$0\r\n\r\n";

    @Test
    void pipelinedRequestsOnTheSimulator() {
        assertEquals(List.of(REPLIES, "syncs shared", "one at a time in order", "closed after a framing error", "+OK\r\n then closed"),
                SimRunner.of(SimConfig.builder().seed(7).build()).start(RespProtocolTest::scenario));
    }

    @Test
    void pipelinedRequestsOnRuntimeUring() {
        Runner runner = UringRunner.builder().workers(2).storage(data).build();
        assertEquals(List.of(REPLIES, "syncs shared", "one at a time in order", "closed after a framing error", "+OK\r\n then closed"),
                runner.start(RespProtocolTest::scenario));
    }

    private static List<String> scenario(Context ctx) {
        Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                listener.localAddress().getPort());
        KvServer server = new KvServer(KvOptions.defaults("resp"), line -> { });
        RespProtocol protocol = new RespProtocol(server::store);
        Handle<Void> serving = ctx.child("server").spawn(c -> server.serve(c, listener, protocol::serve));
        while (server.store() == null) {
            ctx.sleep(Duration.ofMillis(1));
        }
        List<String> seen = new ArrayList<>();
        try (Connection client = ctx.dial(address).await()) {
            seen.add(exchange(client, PIPELINE, REPLIES.length()));

            long syncsBefore = server.store().stats().syncs();
            StringBuilder sets = new StringBuilder();
            StringBuilder oks = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                String key = "key" + i;
                sets.append("*3\r\n$3\r\nSET\r\n$").append(key.length()).append("\r\n").append(key)
                        .append("\r\n$1\r\nv\r\n");
                oks.append("+OK\r\n");
            }
            assertEquals(oks.toString(), exchange(client, sets.toString(), oks.length()));
            long syncs = server.store().stats().syncs() - syncsBefore;
            assertTrue(syncs >= 1 && syncs < 10, "100 pipelined SETs took " + syncs + " syncs");
            // INFO reports the store's counters, so that a client can see how many writes share a sync.
            KvStore.Stats stats = server.store().stats();
            Map<String, String> expected = Map.of("lockstep_puts", Long.toString(stats.puts()), "lockstep_deletes",
                    Long.toString(stats.deletes()), "lockstep_syncs", Long.toString(stats.syncs()),
                    "lockstep_bytes_appended", Long.toString(stats.bytesAppended()));
            assertEquals("101", expected.get("lockstep_puts"), "a SET of the first pipeline and these 100");
            String info = bulkReply(client, "INFO\r\n");
            assertEquals(expected, lockstepFields(info), info);
            assertEquals("7.0.0", fields(info).get("redis_version"), info);
            String persistence = bulkReply(client, command("INFO", "Persistence"));
            assertEquals(expected, lockstepFields(persistence), persistence);
            assertEquals(null, fields(persistence).get("redis_version"), "only the section asked for: " + persistence);
            assertEquals("", bulkReply(client, command("INFO", "nosuchsection")), "a section the server lacks");
            seen.add("syncs shared");
        }
        try (Connection client = ctx.dial(address).await()) {
            // One request at a time, as redis-benchmark without pipelining sends them: each reply is in flight
            // while the server waits for the next request, and every reply comes back to its own request.
            for (int i = 0; i < 20; i++) {
                String key = "one" + i;
                String value = "value" + i;
                assertEquals("+OK\r\n", exchange(client, set(key, value), 5));
                String bulk = "$" + value.length() + "\r\n" + value + "\r\n";
                assertEquals(bulk, exchange(client, "*2\r\n$3\r\nGET\r\n$" + key.length() + "\r\n" + key
                        + "\r\n", bulk.length()));
            }
            // The next request sent before the last reply is read: the replies still come in order.
            client.sink().send(set("k", "first").getBytes(StandardCharsets.ISO_8859_1)).await();
            client.sink().send("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n".getBytes(StandardCharsets.ISO_8859_1)).await();
            assertEquals("+OK\r\n$5\r\nfirst\r\n", new String(client.stream().recv(16).await(),
                    StandardCharsets.ISO_8859_1));
            seen.add("one at a time in order");
        }
        try (Connection client = ctx.dial(address).await()) {
            String expected = "-ERR Protocol error: argument 0 must be a bulk string ('$'), was type byte ':'\r\n";
            assertEquals(expected, exchange(client, "PING\r\n*1\r\n:5\r\n", 7 + expected.length())
                    .substring(7));
            assertThrows(RecvFailedException.class, () -> client.stream().recv(1).await());
            seen.add("closed after a framing error");
        }
        try (Connection client = ctx.dial(address).await()) {
            String ok = exchange(client, "QUIT\r\nPING\r\n", 5);
            assertThrows(RecvFailedException.class, () -> client.stream().recv(1).await());
            seen.add(ok + " then closed");
        }
        serving.abort();
        return seen;
    }

    private static String set(String key, String value) {
        return "*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$" + value.length() + "\r\n" + value
                + "\r\n";
    }

    /** Sends a request whose reply is a bulk string, and returns the string. */
    private static String bulkReply(Connection client, String request) {
        client.sink().send(request.getBytes(StandardCharsets.ISO_8859_1)).await();
        StringBuilder header = new StringBuilder();
        while (header.length() < 2 || header.charAt(header.length() - 2) != '\r'
                || header.charAt(header.length() - 1) != '\n') {
            header.append((char) client.stream().recv(1).await()[0]);
        }
        assertEquals('$', header.charAt(0), "not a bulk string: " + header);
        int length = Integer.parseInt(header.substring(1, header.length() - 2));
        String body = new String(client.stream().recv(length + 2).await(), StandardCharsets.UTF_8);
        assertTrue(body.endsWith("\r\n"), body);
        return body.substring(0, length);
    }

    private static String command(String... words) {
        StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
        for (String word : words) {
            request.append('$').append(word.length()).append("\r\n").append(word).append("\r\n");
        }
        return request.toString();
    }

    /** An INFO reply's {@code name:value} lines, its {@code #} section titles left out. */
    private static Map<String, String> fields(String info) {
        Map<String, String> fields = new TreeMap<>();
        for (String line : info.split("\r\n")) {
            int colon = line.indexOf(':');
            if (!line.startsWith("#") && colon > 0) {
                assertEquals(null, fields.put(line.substring(0, colon), line.substring(colon + 1)), info);
            }
        }
        return fields;
    }

    private static Map<String, String> lockstepFields(String info) {
        Map<String, String> lockstep = new TreeMap<>(fields(info));
        lockstep.keySet().removeIf(name -> !name.startsWith("lockstep_"));
        return lockstep;
    }

    private static String exchange(Connection client, String request, int replyBytes) {
        client.sink().send(request.getBytes(StandardCharsets.ISO_8859_1)).await();
        return new String(client.stream().recv(replyBytes).await(), StandardCharsets.ISO_8859_1);
    }
}
