package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lockstep.Connection;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.TimeoutException;
import dev.lockstep.engine.worker.Worker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * Cancellations submitted with their task work run at once (RingEnter.submitAndRunTaskWork), on every set-up the
 * ring falls back to: accepts closed or timed out right before another accept, and bursts of cancelled receives
 * in one turn on a small ring (more cancellations than SQ entries), each followed by traffic that must arrive
 * in order. Every run must end, and no fd is left behind.
 */
class UringCancelTaskWorkStressTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static void forceSetupChoice(int choice) throws Exception {
        var field = UringSetup.class.getDeclaredField("firstAcceptedSetupChoice");
        field.setAccessible(true);
        field.setInt(null, choice);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4})
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void cancellationsOnEverySetupEndAndLoseNothing(int choice) throws Exception {
        int fdsBefore = OpenDescriptors.fdCount();
        forceSetupChoice(choice);
        try {
            long seconds = StressBudget.seconds();
            long start = System.nanoTime();
            int[] counts = new int[3];
            String[] flags = new String[1];
            while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(seconds)) {
                UringRunner.builder().workers(2).ringEntries(8).build().start(ctx -> {
                    flags[0] = ((UringRing) Worker.current().ring()).setupFlags();
                    try (Listener listener = ctx.bind(ANY_PORT).await()) {
                        for (int round = 0; round < 20; round++) {
                            // An accept closed (or timed out) right before the next one.
                            if ((round & 1) == 0) {
                                Operation<Connection> first = listener.accept();
                                first.poll(dev.lockstep.Waker.noop());
                                first.close();
                            } else {
                                long nanos = 1 + round * 50_000L;
                                assertThrows(TimeoutException.class,
                                        () -> ctx.timeout(Duration.ofNanos(nanos),
                                                () -> listener.accept().await()));
                            }
                            Operation<Connection> accepting = listener.accept();
                            try (Connection client = ctx.dial(listener.localAddress()).await();
                                 Connection server = ctx.timeout(Duration.ofSeconds(3), accepting::await)) {
                                counts[0]++;
                                // A burst of receives on other connections closed in one turn (a stream is
                                // unusable after a cancelled receive), then traffic on this one that must arrive.
                                List<Connection> spares = new ArrayList<>();
                                List<Operation<byte[]>> recvs = new ArrayList<>();
                                for (int i = 0; i < 5; i++) {
                                    Operation<Connection> spareAccept = listener.accept();
                                    spares.add(ctx.dial(listener.localAddress()).await());
                                    Connection spare = ctx.timeout(Duration.ofSeconds(3), spareAccept::await);
                                    spares.add(spare);
                                    Operation<byte[]> recv = spare.stream().recv(3);
                                    recv.poll(dev.lockstep.Waker.noop());
                                    recvs.add(recv);
                                }
                                ctx.sleep(Duration.ofNanos(round * 20_000L)); // the receives reach the kernel
                                for (Operation<byte[]> recv : recvs) {
                                    recv.close();
                                }
                                counts[1] += recvs.size();
                                for (Connection spare : spares) {
                                    spare.close();
                                }
                                byte[] message = ("m" + (round % 10) + "!").getBytes(StandardCharsets.UTF_8);
                                client.sink().send(message).await();
                                assertArrayEquals(message, ctx.timeout(Duration.ofSeconds(3),
                                        () -> server.stream().recv(3).await()));
                                counts[2]++;
                            }
                        }
                    }
                    return null;
                });
            }
            System.out.println("setup " + flags[0] + ": accepts " + counts[0] + ", cancelled receives " + counts[1]
                    + ", echoes " + counts[2]);
        } finally {
            forceSetupChoice(0);
        }
        assertEquals(fdsBefore, OpenDescriptors.fdCount(), "fds leaked: " + OpenDescriptors.fds());
    }
}
