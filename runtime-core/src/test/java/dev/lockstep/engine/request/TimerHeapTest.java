package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The timer heap against a sorted-set model: same order, eager removal, ties in arming order. */
class TimerHeapTest {

    @Test
    void randomArmsRemovalsAndPollsMatchASortedModel() {
        for (long seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            TimerHeap heap = new TimerHeap();
            TreeSet<TimerHeap.Timer> model = new TreeSet<>(
                    Comparator.<TimerHeap.Timer>comparingLong(t -> t.deadlineNanos).thenComparingLong(t -> t.sequence));
            List<TimerHeap.Timer> armed = new ArrayList<>();
            for (int step = 0; step < 400; step++) {
                int action = random.nextInt(10);
                if (action < 5) {
                    // Few distinct deadlines, so ties are common.
                    TimerHeap.Timer timer = heap.add(random.nextInt(50), null);
                    model.add(timer);
                    armed.add(timer);
                } else if (action < 8 && !armed.isEmpty()) {
                    TimerHeap.Timer timer = armed.remove(random.nextInt(armed.size()));
                    heap.remove(timer);
                    heap.remove(timer);
                    model.remove(timer);
                } else {
                    TimerHeap.Timer expected = model.pollFirst();
                    TimerHeap.Timer actual = heap.poll();
                    assertSame(expected, actual, "seed " + seed + " step " + step);
                    armed.remove(actual);
                }
                assertEquals(model.size(), heap.size(), "seed " + seed + " step " + step);
                assertSame(model.isEmpty() ? null : model.first(), heap.peek(), "seed " + seed + " step " + step);
            }
            while (!model.isEmpty()) {
                assertSame(model.pollFirst(), heap.poll());
            }
            assertNull(heap.poll());
        }
    }
}
