package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Connection;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * The simulator takes runtime-uring's inline turn ({@code InlineTurns.turn}): a fiber about to park for a send (a
 * request that usually completes at submission), with nothing else of its worker queued, submits it from its own
 * step instead of leaving it to the next service turn. What a user relies on: the code path production takes on
 * every such send is the one the simulator explores, with its faults and schedules, and the bytes arrive all the
 * same. Seen in the trace: a service turn makes one {@code ring.enter}, so enters beyond the turns are the fibers'
 * own.
 */
class InlineTurnTest {

    private static final int MESSAGES = 200;
    private static final int SIZE = 64;

    /**
     * A client on worker 0 sends numbered messages one at a time to a server fiber on worker {@code serverWorker}
     * that checks each; returns the number of {@code ring.enter} events of the traced run.
     */
    private static long sendAndCountEnters(SimRunner runner, int serverWorker) {
        Long checked = runner.start(ctx -> {
            InetSocketAddress address = new InetSocketAddress(SimRunner.control(ctx).host(serverWorker), 9000);
            Listener listener = ctx.child("bind").spawnOn(serverWorker, c -> c.bind(address).await()).await();
            Handle<Long> server = ctx.child("server").spawnOn(serverWorker, c -> {
                long received = 0;
                try (listener; Connection connection = listener.accept().await()) {
                    while (received < (long) MESSAGES * SIZE) {
                        byte[] bytes = connection.stream().recv(SIZE).await();
                        for (byte b : bytes) {
                            assertEquals((byte) (received / SIZE), b, "byte " + received);
                            received++;
                        }
                    }
                }
                return received;
            });
            try (Connection connection = ctx.dial(address).await()) {
                for (int i = 0; i < MESSAGES; i++) {
                    byte[] message = new byte[SIZE];
                    java.util.Arrays.fill(message, (byte) i);
                    connection.sink().send(message).await();
                }
            }
            return server.await();
        });
        assertEquals((long) MESSAGES * SIZE, checked);
        return runner.trace().stream().filter(event -> event.kind().equals("ring.enter")).count();
    }

    @Test
    void aSendWithNothingElseOfItsWorkerQueuedIsSubmittedFromItsFibersOwnStep() {
        // One worker: every scheduler step that services it is one whole turn, one enter.
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(7).build()).traced();
        long enters = sendAndCountEnters(runner, 0);
        long turns = runner.stats().serviceSteps();
        assertTrue(enters > turns + MESSAGES / 4, enters + " ring enters for " + turns + " service turns: the "
                + MESSAGES + " sends were not submitted by their fibers");
    }

    /**
     * In the interleaved mode a turn is two steps ({@code EngineHooks.serviceHalf}), or one when its half 0 has
     * nothing to do ({@code EngineHooks.serviceTurnFromHalfOne}); the budget of inline turns between two service
     * turns ({@code InlineTurns.PER_SERVICE}, 32) starts again with each turn of either kind, as
     * {@code Worker.service} starts it, so a long exchange keeps turning inline, not only for the first 32 sends.
     */
    @Test
    void interleavedTurnsRenewTheInlineBudgetAsWholeTurnsDo() {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(11).workers(2)
                .scheduling(Scheduling.INTERLEAVED).build()).traced();
        long enters = sendAndCountEnters(runner, 1);
        // A turn makes its one enter in its half 1, so a turn that ended made one, and a turn the run's end cut
        // after its half 0 made none.
        long turnEnters = runner.stats().serviceTurns();
        long inline = enters - turnEnters;
        assertTrue(inline > 2 * 32, inline + " inline enters (" + enters + " enters, " + turnEnters
                + " turns): the budget was not renewed by the interleaved turns");
    }

    @Test
    void theSameSeedTakesTheSameInlineTurns() {
        String[] digests = new String[2];
        long[] enters = new long[2];
        for (int run = 0; run < 2; run++) {
            SimRunner runner = SimRunner.of(SimConfig.builder().seed(13).workers(2).build()).traced();
            enters[run] = sendAndCountEnters(runner, 1);
            digests[run] = runner.digest();
        }
        assertArrayEquals(new long[] {enters[0], enters[0]}, enters);
        assertEquals(digests[0], digests[1]);
    }
}
