package dev.lockstep.sim.sched;

import static dev.lockstep.ModelChecks.check;
import static dev.lockstep.ModelChecks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ForeignHandoff}, the simulator's one cross-thread piece, under Lincheck's model checker and under real
 * threads. What it promises (its class doc): once an offer has returned, its item is either drained already or the
 * owner's next {@link ForeignHandoff#pending()} is true, so the owner takes every item exactly once.
 *
 * <p>The model check explores the interleavings of two offering threads and a draining owner. Checked by putting
 * the bug back: with the drain's order reversed (the flag cleared after the polls) it finds the lost item at once
 * (an offer between the drain's last poll and its write of the flag). The threads below did not, in three runs:
 * that window is a few instructions wide, which is what the model check is for.
 *
 * <p>Timeout: Lincheck instruments every class a scenario meets on first contact, which on a loaded 2-core machine
 * can take most of a minute, and times a hung interleaving itself ({@code ModelChecks.check} looks again at that
 * verdict once); 300 s bounds a hang, not speed.
 */
@Timeout(300)
class ForeignHandoffModelTest {
    private static final int INVOCATIONS = 100;

    @Test
    void theOwnerTakesEveryOfferOnceWhateverTheInterleaving() {
        check(INVOCATIONS, () -> {
            ForeignHandoff<Integer> handoff = new ForeignHandoff<>();
            List<Integer> taken = new ArrayList<>(); // the owner's: one thread at a time, joined in between
            handoff.offer(1); // so the owner's drain below runs, and a second offer races with it
            run(() -> handoff.offer(2), () -> handoff.offer(3), () -> {
                if (handoff.pending()) {
                    handoff.drain(taken::add);
                }
            });
            // Every offer has returned: the owner's next look finds whatever it has not taken.
            if (handoff.pending()) {
                handoff.drain(taken::add);
            }
            Collections.sort(taken);
            assertEquals(List.of(1, 2, 3), taken);
        });
    }

    @Test
    void fourThreadsOfferingWhileTheOwnerDrainsLoseNothing() throws InterruptedException {
        ForeignHandoff<Integer> handoff = new ForeignHandoff<>();
        int threads = 4;
        int each = 20_000;
        List<Integer> taken = new ArrayList<>();
        AtomicBoolean offering = new AtomicBoolean(true);
        Thread owner = new Thread(() -> {
            while (offering.get()) {
                if (handoff.pending()) {
                    handoff.drain(taken::add);
                }
            }
        });
        owner.start();
        List<Thread> offerers = IntStream.range(0, threads).mapToObj(t -> new Thread(() -> {
            for (int i = 0; i < each; i++) {
                handoff.offer(t * each + i);
            }
        })).toList();
        offerers.forEach(Thread::start);
        for (Thread offerer : offerers) {
            offerer.join();
        }
        offering.set(false);
        owner.join();
        if (handoff.pending()) {
            handoff.drain(taken::add);
        }
        Collections.sort(taken);
        assertEquals(IntStream.range(0, threads * each).boxed().toList(), taken, "every offer taken exactly once");
    }
}
