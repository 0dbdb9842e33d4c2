package dev.lockstep.engine.io;

import static dev.lockstep.ModelChecks.check;
import static dev.lockstep.ModelChecks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.engine.CountingRing;
import dev.lockstep.engine.ModelCheckingTest;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link MetadataLane} under Lincheck's model checker, as {@link ModelCheckingTest} checks the other
 * cross-thread pieces: workers join a partition's lane and test whether they are its head while the request
 * at the head leaves. What the lane promises (its class documentation): one head at a time, in join order, and
 * no lost wake-up — a request that is the head either saw so when it tested, or its worker was nudged.
 *
 * <p>Timeout, and the retry of a "hung" verdict: as {@link ModelCheckingTest}, through the same harness
 * ({@code ModelChecks}).
 */
@Timeout(300)
class MetadataLaneModelTest {
    private static final int INVOCATIONS = 40;

    /** A request that only names itself: the lane never looks inside. */
    private static final class NamedRequest extends Request {
        private final String name;

        NamedRequest(String name) {
            this.name = name;
        }

        @Override
        public Kind kind() {
            return Kind.IMMEDIATE;
        }

        @Override
        public String describe() {
            return name;
        }
    }

    /**
     * The head leaves while two workers join behind it and test their turn: at no point are both heads, and the
     * one that is the head at the end was told — its own test saw it, or the leave nudged its worker. Then it
     * leaves too, and the last one is nudged.
     */
    @Test
    void theNextHeadIsAlwaysToldAndThereIsOneHeadAtATime() {
        check(INVOCATIONS, () -> {
            MetadataLane lane = new MetadataLane("p");
            CountingRing holderRing = new CountingRing();
            CountingRing firstRing = new CountingRing();
            CountingRing secondRing = new CountingRing();
            MetadataLane.Waiting holder = lane.join(new NamedRequest("holder"), new Worker(0, null, holderRing));
            Worker firstWorker = new Worker(1, null, firstRing);
            Worker secondWorker = new Worker(2, null, secondRing);
            MetadataLane.Waiting[] joined = new MetadataLane.Waiting[2];
            boolean[] sawHead = new boolean[2];
            run(() -> lane.leave(holder), () -> {
                joined[0] = lane.join(new NamedRequest("first"), firstWorker);
                sawHead[0] = lane.isHead(joined[0]);
            }, () -> {
                joined[1] = lane.join(new NamedRequest("second"), secondWorker);
                sawHead[1] = lane.isHead(joined[1]);
            });
            assertFalse(sawHead[0] && sawHead[1], "two requests of one partition were heads at once");
            int head = lane.isHead(joined[0]) ? 0 : 1;
            assertTrue(lane.isHead(joined[head]), "one of the two is the head once the holder left");
            CountingRing[] rings = {firstRing, secondRing};
            assertTrue(sawHead[head] || rings[head].wakes.get() > 0,
                    "the new head neither saw its turn nor was nudged: a lost wake-up");
            int other = 1 - head;
            int wakesBefore = rings[other].wakes.get();
            lane.leave(joined[head]);
            lane.leave(joined[head]); // idempotent: nobody is nudged twice for it
            assertTrue(lane.isHead(joined[other]));
            assertEquals(wakesBefore + 1, rings[other].wakes.get(), "the last one was nudged once by the leave");
            lane.leave(joined[other]);
            assertEquals(0, lane.size());
        });
    }
}
