package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Waker;
import dev.lockstep.sim.os.SimNetwork;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Flow control of the simulated network: a send to a peer that does not read waits once
 * {@link SimNetwork#SOCKET_BUFFER_BYTES} are buffered, and goes on as the peer reads; the same seed replays
 * the same run, short transfers and spurious errors included.
 */
class SimFlowControlTest {

    /** A sender of 12 MiB to a receiver that first stalls, then reads in small pieces on another worker. */
    static String workload(Context ctx) {
        Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await();
        Operation<Connection> accepted = listener.accept();
        Connection client = ctx.dial(listener.localAddress()).await();
        Connection server = accepted.await();
        byte[] message = new byte[12 << 20];
        Arrays.fill(message, (byte) 7);
        Operation<Void> send = client.sink().send(message);
        ctx.sleep(Duration.ofSeconds(1));
        assertFalse(send.poll(Waker.noop()).isReady(), "12 MiB sent to a peer that does not read");
        Handle<Long> reader = ctx.child("reader").spawnOn(ctx.workers() - 1, c -> {
            long sum = 0;
            for (int received = 0; received < message.length; received += 64 << 10) {
                for (byte b : server.stream().recv(64 << 10).await()) {
                    sum += b;
                }
            }
            return sum;
        });
        long sum = reader.await();
        send.await();
        String result = sum + "@" + ctx.now();
        send.close();
        client.close();
        server.close();
        listener.close();
        return result;
    }

    private static String[] run(long seed) {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(seed).workers(2)
                .kernelBehavior(KernelBehavior.adversarial()).build());
        String result = runner.start(SimFlowControlTest::workload);
        return new String[] {result, runner.digest()};
    }

    @Test
    void aBlockedSendWaitsForTheReaderAndReplaysBitForBit() {
        String[] first = run(42);
        String[] again = run(42);
        assertEquals(String.valueOf(7L * (12 << 20)), first[0].substring(0, first[0].indexOf('@')));
        assertEquals(first[0], again[0]);
        assertEquals(first[1], again[1], "same seed, same digest");
    }
}
