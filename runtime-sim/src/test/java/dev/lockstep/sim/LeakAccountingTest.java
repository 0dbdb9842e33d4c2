package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Listener;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run must give back what it was given: a run that ends — cleanly, by a crash or by a failure — holding an
 * fd, a ring, a ring buffer or a fiber it did not start with fails its seed, naming each resource and the line
 * that created it.
 */
class LeakAccountingTest {

    private static SimConfig.Builder checked(long seed) {
        return SimConfig.builder().seed(seed).failOnLeaks(true);
    }

    private static void assertMentions(String text, String... parts) {
        for (String part : parts) {
            assertTrue(text.contains(part), "'" + part + "' missing from: " + text);
        }
    }

    @Test
    void aBlobTheTaskForgotToCloseFailsTheSeedNamingIt() {
        SimRunner runner = SimRunner.of(checked(1).build());
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> runner.start(ctx -> {
            Blob forgotten = ctx.open("p", "forgotten").await().blob();
            forgotten.writeAt(0, "x".getBytes(StandardCharsets.UTF_8)).await();
            return null;
        }));
        assertMentions(failure.getMessage(), "resource leak", "1 resource", "fd ", "blob 'p/forgotten'",
                "opened by open", "LeakAccountingTest.java", "replay:");
        assertEquals(1, runner.leaks().size(), runner.leaks().toString());
        assertEquals(1, failure.config().seed());
    }

    @Test
    void aListenerLeftOpenIsNamedWithItsAddress() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.of(checked(2).build())
                .start(ctx -> ctx.bind(new InetSocketAddress("127.0.0.1", 7000)).await().localAddress()));
        assertMentions(failure.getMessage(), "listener", "127.0.0.1:7000", "opened by socket");
    }

    @Test
    void aRunThatClosesEverythingHoldsNothing() {
        SimRunner runner = SimRunner.of(checked(3).workers(2).build());
        String read = runner.start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob();
                    Listener listener = ctx.bind(new InetSocketAddress("127.0.0.1", 7001)).await()) {
                blob.writeAt(0, "ok".getBytes(StandardCharsets.UTF_8)).await();
                blob.sync().await();
                return new String(blob.readAt(0, 2).await(), StandardCharsets.UTF_8) + listener.localAddress()
                        .getPort();
            }
        });
        assertEquals("ok7001", read);
        assertEquals(List.of(), runner.leaks());
    }

    @Test
    void aCrashDoesNotExcuseABlobNoTaskClosed() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.of(checked(4).build())
                .startAndRecover(ctx -> {
                    ctx.open("p", "open-at-the-crash").await();
                    throw SimRunner.control(ctx).crash();
                }));
        assertMentions(failure.getMessage(), "resource leak", "blob 'p/open-at-the-crash'");
    }

    @Test
    void aRecoveredRunReportsTheTasksOwnFailureWithTheLeakAttached() {
        IllegalStateException mine = new IllegalStateException("the task's own failure");
        Recovered<Object> recovered = SimRunner.of(checked(8).build()).startAndRecover(ctx -> {
            ctx.open("p", "held-at-the-throw").await();
            throw mine;
        });
        Outcome.Failed<Object> failed = assertInstanceOf(Outcome.Failed.class, recovered.outcome());
        assertSame(mine, failed.failure());
        assertEquals(1, mine.getSuppressed().length, Arrays.toString(mine.getSuppressed()));
        assertMentions(assertInstanceOf(SimulationFailure.class, mine.getSuppressed()[0]).getMessage(),
                "resource leak", "blob 'p/held-at-the-throw'", "replay:");
    }

    /**
     * The accept loop without an owning spawn: the handler's supervisor is aborted before its first step, so its
     * try-with-resources never runs and the connection leaks; the leak names the user's accept, not the service
     * turn that completed it. With {@code spawn(connection, handler)} the same run gives everything back.
     */
    @Test
    void aConnectionHandedToATaskThatNeverRanLeaksFromTheUsersAcceptUnlessTheSpawnOwnsIt() {
        for (boolean owning : new boolean[] {false, true}) {
            SimRunner runner = SimRunner.of(checked(9).build());
            dev.lockstep.Task<Object> acceptLoop = ctx -> {
                try (Listener listener = ctx.bind(new InetSocketAddress("127.0.0.1", 7002)).await();
                        dev.lockstep.Connection client = ctx.dial(listener.localAddress()).await()) {
                    dev.lockstep.Connection accepted = listener.accept().await();
                    dev.lockstep.Context parent = ctx.child("parent");
                    dev.lockstep.Context handler = parent.child("handler");
                    parent.spawn(p -> null).await(); // aborts the handler's node before the handler is spawned
                    dev.lockstep.Task<Object> body = h -> {
                        try (dev.lockstep.Connection connection = accepted) {
                            return connection.peer();
                        }
                    };
                    return owning ? handler.spawn(accepted, body) : handler.spawn(body);
                }
            };
            if (owning) {
                runner.start(acceptLoop);
                assertEquals(List.of(), runner.leaks());
            } else {
                SimulationFailure failure = assertThrows(SimulationFailure.class, () -> runner.start(acceptLoop));
                assertMentions(failure.getMessage(), "resource leak", "connection to", "opened by accept",
                        "from dev.lockstep.sim.LeakAccountingTest");
                assertFalse(failure.getMessage().contains("Worker"), failure.getMessage());
            }
        }
    }

    @Test
    void aFailedRunReportsItsLeaksWithItsFailure() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.of(checked(5)
                .timeLimit(Duration.ofSeconds(1)).build()).start(ctx -> {
                    Blob blob = ctx.open("p", "held").await().blob();
                    ctx.sleep(Duration.ofSeconds(5));
                    return blob;
                }));
        assertMentions(failure.getMessage(), "timed out", "and resource leak", "blob 'p/held'");
    }

    @Test
    void aLongListIsCutInTheMessageAndWholeInLeaks() {
        SimRunner runner = SimRunner.of(checked(7).build());
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> runner.start(ctx -> {
            for (int i = 0; i < 12; i++) {
                ctx.open("p", "forgotten" + i).await();
            }
            return null;
        }));
        assertMentions(failure.getMessage(), "12 resources", "blob 'p/forgotten0'", "and 4 more");
        assertEquals(12, runner.leaks().size());
    }

    @Test
    void withTheCheckOffTheLeaksAreListedAndTheRunPasses() {
        SimRunner runner = SimRunner.of(checked(6).failOnLeaks(false).build());
        runner.start(ctx -> ctx.open("p", "listed").await());
        assertEquals(1, runner.leaks().size());
        assertMentions(runner.leaks().getFirst(), "blob 'p/listed'");
        assertTrue(checked(6).failOnLeaks(false).build().toJava().contains(".failOnLeaks(false)"),
                "the replay line keeps the check switched off");
        assertFalse(checked(6).build().toJava().contains("failOnLeaks"), "on is the default");
    }
}
