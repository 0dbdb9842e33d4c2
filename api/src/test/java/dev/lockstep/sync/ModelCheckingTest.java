package dev.lockstep.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ModelChecks;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The primitives' cross-thread hand-overs under Lincheck's model checker, which runs the threads of each scenario
 * in every order it can reach (switching at each shared access) and checks what the scenario asserts afterwards:
 * a completion racing a poll never loses the wake-up, a value handed to a receive closed from another thread goes
 * back, permits are never lost or doubled. No scenario parks (polls only), so every interleaving terminates.
 *
 * <p>Timeout: Lincheck instruments every class a scenario meets, on first contact, and detects a hung
 * interleaving itself (30 s). On a loaded 2-core machine that instrumentation alone took the first scenario
 * past the 60 s default (71 s, then 50 s for the whole class on the next run), so the class allows 300 s: a
 * bound on a hang, not on speed.
 */
@Timeout(300)
class ModelCheckingTest {
    private static final int INVOCATIONS = 200;

    /** Counts wakes; retains and releases are identity. */
    private static final class Wakes implements Waker {
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void wake() {
            count.incrementAndGet();
        }
    }

    @Test
    void aCompletionRacingAPollIsSeenByThePollOrWakesItsWaker() {
        ModelChecks.check(INVOCATIONS, () -> {
            OneShot<String> value = new OneShot<>();
            Operation<String> get = value.get();
            Wakes waker = new Wakes();
            boolean[] readyAtPoll = new boolean[1];
            ModelChecks.run(() -> readyAtPoll[0] = get.poll(waker).isReady(), () -> value.complete("v"));
            assertTrue(readyAtPoll[0] || waker.count.get() == 1, "the completion was lost: neither seen nor woken");
            assertTrue(waker.count.get() <= 1, "woken twice");
        });
    }

    @Test
    void aValueHandedToAReceiveClosedFromAnotherThreadIsNeverLost() {
        ModelChecks.check(INVOCATIONS, () -> {
            Channel<Integer> channel = Channel.bounded(1);
            Operation<Integer> receive = channel.receive();
            boolean[] accepted = new boolean[2];
            Integer[] observed = new Integer[1];
            ModelChecks.run(() -> accepted[0] = channel.trySend(1),
                () -> accepted[1] = channel.trySend(2),
                () -> {
                    Poll<Integer> poll = receive.poll(Waker.noop());
                    if (poll.isReady()) {
                        observed[0] = poll.get();
                    }
                    receive.close();
                });
            List<Integer> got = new ArrayList<>();
            if (observed[0] != null) {
                got.add(observed[0]);
            }
            for (Integer next = channel.tryReceive(); next != null; next = channel.tryReceive()) {
                got.add(next);
            }
            List<Integer> sent = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                if (accepted[i]) {
                    sent.add(i + 1);
                }
            }
            got.sort(null);
            assertEquals(sent, got, "accepted values and received values differ");
        });
    }

    @Test
    void permitsAreNeitherLostNorDoubledWhenGrantsRaceCloses() {
        ModelChecks.check(INVOCATIONS, () -> {
            Semaphore semaphore = new Semaphore(1);
            Lease first = semaphore.tryAcquire(1);
            Operation<Lease> waiting = semaphore.acquire(1);
            ModelChecks.run(first::close,
                waiting::close,
                () -> {
                    Lease other = semaphore.tryAcquire(1);
                    if (other != null) {
                        other.close();
                    }
                });
            assertEquals(1, semaphore.available(), "permits lost or doubled");
        });
    }

    @Test
    void aMutexAdmitsOneAtATime() {
        ModelChecks.check(INVOCATIONS, () -> {
            Mutex mutex = new Mutex();
            AtomicInteger holders = new AtomicInteger();
            boolean[] overlap = new boolean[1];
            Runnable attempt = () -> {
                Lease held = mutex.tryLock();
                if (held != null) {
                    if (holders.incrementAndGet() > 1) {
                        overlap[0] = true;
                    }
                    holders.decrementAndGet();
                    held.close();
                }
            };
            Operation<Lease> queued = mutex.lock();
            ModelChecks.run(attempt, attempt, queued::close);
            assertFalse(overlap[0], "two held the mutex at once");
            assertFalse(mutex.isLocked(), "the mutex stayed locked");
        });
    }

    /**
     * Two tries for a free mutex, neither letting go: exactly one wins. What {@link #aMutexAdmitsOneAtATime} checks
     * needs two thread switches at precise points to show a try that checks and takes in two steps (it missed that
     * race at 1,000 interleavings); here one switch between the check and the take shows it.
     */
    @Test
    void twoTriesForAFreeMutexHaveOneWinner() {
        ModelChecks.check(INVOCATIONS, () -> {
            Mutex mutex = new Mutex();
            Lease[] won = new Lease[2];
            ModelChecks.run(() -> won[0] = mutex.tryLock(), () -> won[1] = mutex.tryLock());
            assertEquals(1, (won[0] == null ? 0 : 1) + (won[1] == null ? 0 : 1), "the tries that won");
            assertTrue(mutex.isLocked(), "the winner holds the mutex");
        });
    }
}
