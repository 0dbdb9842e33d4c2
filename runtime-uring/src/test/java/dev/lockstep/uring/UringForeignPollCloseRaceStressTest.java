package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lockstep.ClosedException;
import dev.lockstep.Listener;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A plain thread polls an operation of a worker (a sleeper that would take minutes, or an accept nobody dials)
 * with its own waker while another plain thread closes it (or the listener) after a random spin: the poller must
 * be woken and read ClosedException within a second, whichever of the forward and the cancel reaches the
 * worker's mailbox first. Three workers, time-bounded.
 */
class UringForeignPollCloseRaceStressTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aForeignPollerIsWokenByAForeignClose() {
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicInteger rounds = new AtomicInteger();
        UringRunner.builder().workers(3).ringEntries(16).build().start(ctx -> {
            SplittableRandom random = new SplittableRandom(5);
            long start = System.nanoTime();
            long budget = StressBudget.nanos();
            try (Listener listener = ctx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).await()) {
                for (int round = 0; problem.get() == null && System.nanoTime() - start < budget; round++) {
                    int worker = round % 3;
                    boolean accept = round % 4 == 3;
                    Operation<?> operation = ctx.child("make").spawnOn(worker, m -> accept
                            ? (Operation<?>) listener.accept() : m.sleeper(Duration.ofMinutes(5))).await();
                    int spin = random.nextInt(30_000);
                    CountDownLatch woken = new CountDownLatch(1);
                    Poll<?>[] first = new Poll<?>[1];
                    Thread poller = Thread.ofPlatform().start(() -> first[0] = operation.poll(woken::countDown));
                    RacingCloser closer = RacingCloser.start(() -> true, spin, operation::close);
                    try {
                        poller.join();
                        String gaveUp = closer.join();
                        if (gaveUp != null) {
                            problem.set("round " + round + ": " + gaveUp);
                        } else if (!first[0].isReady() && !woken.await(1, TimeUnit.SECONDS)) {
                            problem.set("round " + round + (accept ? " (accept)" : " (sleeper)")
                                    + ": the foreign poller was never woken after the close");
                        } else if (!first[0].isReady()) {
                            Poll<?> after = operation.poll(() -> { });
                            try {
                                after.get();
                                problem.set("round " + round + ": a closed operation completed");
                            } catch (ClosedException expected) {
                                // as it should
                            }
                        }
                    } catch (InterruptedException interrupted) {
                        throw new IllegalStateException(interrupted);
                    }
                    rounds.incrementAndGet();
                }
            }
            return null;
        });
        System.out.println("poll/close rounds " + rounds.get());
        assertNull(problem.get());
    }
}
