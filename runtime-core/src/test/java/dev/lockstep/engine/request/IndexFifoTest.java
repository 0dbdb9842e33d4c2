package dev.lockstep.engine.request;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The order an {@link IndexFifo} keeps, which {@link SubmitQueues} stages by: oldest first, a requeued index
 * ahead of all, a removed one gone with the others' order kept — across the array's wrap-around and growth,
 * against {@link ArrayDeque} as the model.
 */
class IndexFifoTest {
    @Test
    void keepsTheOrderOfADequeThroughWrapGrowthRequeueAndRemoval() {
        SplittableRandom random = new SplittableRandom(34);
        for (int run = 0; run < 50; run++) {
            IndexFifo fifo = new IndexFifo();
            ArrayDeque<Integer> model = new ArrayDeque<>();
            int next = 0;
            for (int step = 0; step < 2_000; step++) {
                int action = random.nextInt(10);
                if (action < 4) {
                    fifo.addLast(next);
                    model.addLast(next++);
                } else if (action < 5) {
                    fifo.addFirst(next);
                    model.addFirst(next++);
                } else if (action < 8) {
                    Integer expected = model.pollFirst();
                    assertEquals(expected == null ? -1 : expected, fifo.pollFirst(), "run " + run + " step " + step);
                } else if (action < 9) {
                    int target = model.isEmpty() || random.nextBoolean() ? next + 1 : pick(model, random);
                    assertEquals(model.removeFirstOccurrence(target), fifo.remove(target), "removing " + target);
                } else if (random.nextInt(50) == 0) {
                    fifo.clear();
                    model.clear();
                }
                Integer head = model.peekFirst();
                assertEquals(head == null ? -1 : head, fifo.peekFirst());
                assertEquals(model.size(), fifo.size());
            }
            assertArrayEquals(model.stream().mapToInt(Integer::intValue).toArray(), fifo.toArray());
        }
    }

    private static int pick(ArrayDeque<Integer> model, SplittableRandom random) {
        int skip = random.nextInt(model.size());
        for (int value : model) {
            if (skip-- == 0) {
                return value;
            }
        }
        throw new AssertionError("unreachable");
    }
}
