package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.ConnectionFailedException;
import dev.lockstep.Listener;
import dev.lockstep.StorageIoException;
import dev.lockstep.sim.os.SimKernel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run under an open-file limit, as {@code ulimit -n} sets one: past it an open, a dial or an accept fails with
 * {@code EMFILE} as its typed error, as on Linux, and works again once descriptors are closed. What a service's
 * handling of a full descriptor table is tested against, deterministically.
 */
class OpenFileLimitTest {

    private static final int LIMIT = 32;

    @Test
    void anOpenPastTheLimitFailsWithEmfileAndWorksOnceBlobsClose() {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(3).openFileLimit(LIMIT).build());
        String outcome = runner.start(ctx -> {
            List<Blob> blobs = new ArrayList<>();
            String refused = null;
            for (int i = 0; i < LIMIT && refused == null; i++) {
                try {
                    blobs.add(ctx.open("p", "blob" + i).await().blob());
                } catch (StorageIoException full) {
                    refused = full.getMessage();
                }
            }
            int opened = blobs.size();
            for (Blob blob : blobs.subList(0, 4)) {
                blob.close();
            }
            try (Blob again = ctx.open("p", "again").await().blob()) {
                again.writeAt(0, new byte[] {1}).await();
            }
            for (Blob blob : blobs.subList(4, blobs.size())) {
                blob.close();
            }
            return opened + " " + refused;
        });
        assertTrue(outcome.contains("EMFILE"), outcome);
        int opened = Integer.parseInt(outcome.split(" ")[0]);
        assertTrue(opened > 4 && opened < LIMIT, "opened " + opened + " blobs under a limit of " + LIMIT);
    }

    @Test
    void acceptsAndDialsPastTheLimitFailWithEmfileAndTheListenerServesAgain() {
        String[] first = connectionsPastTheLimit(5);
        assertTrue(first[0].contains("EMFILE"), first[0]);
        assertTrue(first[0].contains("served after the flood"), first[0]);
        java.util.regex.Matcher counts = java.util.regex.Pattern.compile("dialed (\\d+), accepted (\\d+)").matcher(first[0]);
        assertTrue(counts.find(), first[0]);
        assertEquals(counts.group(1), counts.group(2), "a connection was lost to a failed accept: " + first[0]);
        String[] second = connectionsPastTheLimit(5);
        assertEquals(first[0], second[0], "the same seed, the same run");
        assertEquals(first[1], second[1], "the same seed, the same digest");
    }

    /** Dials 40 connections and holds them, then closes them and dials one more: what happened, and the digest. */
    private static String[] connectionsPastTheLimit(long seed) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(2).openFileLimit(LIMIT).build());
        String outcome = runner.start(ctx -> {
            SimControl sim = SimRunner.control(ctx);
            InetSocketAddress address = new InetSocketAddress(sim.host(1), 9000);
            Listener listener = ctx.child("bind").spawnOn(1, c -> c.bind(address).await()).await();
            List<String> events = new ArrayList<>();
            List<Connection> accepted = new ArrayList<>();
            int[] acceptedInAll = {0};
            var server = ctx.child("server").spawnOn(1, c -> {
                while (true) {
                    try {
                        accepted.add(listener.accept().await());
                        acceptedInAll[0]++;
                    } catch (ConnectionFailedException failed) {
                        events.add("accept: " + failed.getMessage());
                        c.sleep(Duration.ofMillis(5));
                    }
                }
            });
            List<Connection> dialed = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                try {
                    dialed.add(ctx.dial(address).await());
                } catch (ConnectionFailedException failed) {
                    events.add("dial: " + failed.getMessage());
                }
            }
            ctx.sleep(Duration.ofMillis(20));
            for (Connection connection : dialed) {
                connection.close();
            }
            ctx.child("close").spawnOn(1, c -> {
                for (Connection connection : accepted) {
                    connection.close();
                }
                accepted.clear();
                return null;
            }).await();
            ctx.sleep(Duration.ofMillis(20));
            try (Connection late = ctx.dial(address).await()) {
                late.sink().send(new byte[] {7}).await();
            }
            ctx.sleep(Duration.ofMillis(20));
            boolean served = ctx.child("count").spawnOn(1, c -> !accepted.isEmpty()).await();
            // Every connection dialed was accepted in the end: an accept that failed left its connection queued.
            events.add("dialed " + (dialed.size() + 1) + ", accepted " + acceptedInAll[0]);
            server.abort();
            ctx.child("closeLate").spawnOn(1, c -> {
                for (Connection connection : accepted) {
                    connection.close();
                }
                return null;
            }).await();
            listener.close();
            return String.join("\n", events) + (served ? "\nserved after the flood" : "\nnot served");
        });
        return new String[] {outcome, runner.digest()};
    }

    @Test
    void aLimitOutsideItsRangeIsRefusedNamingIt() {
        for (int bad : new int[] {0, SimKernel.FIRST_FD, SimKernel.MAX_FDS + 1}) {
            InvalidConfigException refused = assertThrows(InvalidConfigException.class,
                    () -> SimConfig.builder().openFileLimit(bad).build());
            assertTrue(refused.getMessage().startsWith("SimConfig.openFileLimit must be above 3"), refused.getMessage());
            assertTrue(refused.getMessage().endsWith("was " + bad), refused.getMessage());
        }
    }

    @Test
    void theReplayLineCarriesALimitAndOnlyOneThatIsSet() {
        SimConfig limited = SimConfig.builder().seed(9).openFileLimit(64).build();
        assertTrue(limited.toJava().contains(".openFileLimit(64)"), limited.toJava());
        assertEquals(64, limited.toBuilder().build().openFileLimit());
        SimConfig plain = SimConfig.builder().seed(9).build();
        assertFalse(plain.toJava().contains("openFileLimit"), plain.toJava());
        assertEquals(SimKernel.MAX_FDS, plain.openFileLimit());
    }
}
