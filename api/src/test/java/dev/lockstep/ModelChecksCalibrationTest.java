package dev.lockstep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The model checker itself, against races it must find: a passing model check means something only if the same
 * harness fails on a known bug. The races below are ones a single interleaving does not show (run one thread
 * after the other and each scenario passes), so a harness that stops exploring fails this test instead of passing
 * every model check: as {@code ModelChecks.run} did with plain {@code new Thread(body)} threads on JDK 25, and as
 * Lincheck's default loop bounds did after a setup loop. The last test holds the harness to the other half of its
 * promise: an exploration that ends before the count asked for fails rather than passing.
 *
 * <p>Timeout: as the other model checks (Lincheck instruments classes on first contact).
 */
@Timeout(300)
class ModelChecksCalibrationTest {
    /** One shared field, read and written back by two threads. */
    private static final class Counter {
        volatile int value;
    }

    @Test
    void aLostUpdateIsFound() {
        LincheckAssertionError found = assertThrows(LincheckAssertionError.class, () -> ModelChecks.check(200, () -> {
            Counter counter = new Counter();
            ModelChecks.run(() -> counter.value = counter.value + 1, () -> counter.value = counter.value + 1);
            assertEquals(2, counter.value, "an increment was lost");
        }));
        assertTrue(found.getMessage().contains("an increment was lost"), found.getMessage());
    }

    /**
     * The same lost update after a setup loop on the scenario's own thread, of a length that made Lincheck's default
     * bounds stop after 3 interleavings (20) and of one that made them report a hang (200): both must be found.
     */
    @Test
    void aLostUpdateAfterALongSetupLoopIsFound() {
        for (int setup : new int[] {20, 200}) {
            LincheckAssertionError found = assertThrows(LincheckAssertionError.class,
                    () -> ModelChecks.check(200, () -> {
                        Counter counter = new Counter();
                        for (int i = 0; i < setup; i++) {
                            counter.value = counter.value + 1;
                        }
                        ModelChecks.run(() -> counter.value = counter.value + 1,
                                () -> counter.value = counter.value + 1);
                        assertEquals(setup + 2, counter.value, "an increment was lost");
                    }), "after a setup loop of " + setup);
            assertTrue(found.getMessage().contains("an increment was lost"), found.getMessage());
        }
    }

    @Test
    void anExplorationThatEndsEarlyFails() {
        // Two threads that each make one shared access have few interleavings: asked for far more, the check
        // says it explored fewer rather than passing as if it had explored them all.
        AssertionError endedEarly = assertThrows(AssertionError.class, () -> ModelChecks.check(1_000, () -> {
            AtomicInteger shared = new AtomicInteger();
            ModelChecks.run(shared::incrementAndGet, shared::incrementAndGet);
            assertEquals(2, shared.get());
        }));
        assertTrue(endedEarly.getMessage().contains("of the 1000 interleavings asked for"), endedEarly.getMessage());
    }

    /** A queue with a flag saying it may hold something, cleared after the queue is drained: the wrong order. */
    private static final class FlagClearedLast {
        final ConcurrentLinkedQueue<Integer> items = new ConcurrentLinkedQueue<>();
        volatile boolean pending;
    }

    @Test
    void aFlagClearedAfterTheDrainIsFoundToLoseAnItem() {
        // The shape of the simulator's ForeignHandoff with its drain's two steps swapped: an offer between the
        // drain's last poll and its clear of the flag leaves an item that no later look at the flag finds.
        assertThrows(LincheckAssertionError.class, () -> ModelChecks.check(500, () -> {
            FlagClearedLast handoff = new FlagClearedLast();
            List<Integer> taken = new ArrayList<>();
            ModelChecks.run(() -> {
                handoff.items.add(1);
                handoff.pending = true;
            }, () -> {
                Integer item;
                while ((item = handoff.items.poll()) != null) {
                    taken.add(item);
                }
                handoff.pending = false;
            });
            if (handoff.pending) {
                Integer item;
                while ((item = handoff.items.poll()) != null) {
                    taken.add(item);
                }
            }
            assertEquals(List.of(1), taken, "the offered item was left behind");
        }));
    }
}
