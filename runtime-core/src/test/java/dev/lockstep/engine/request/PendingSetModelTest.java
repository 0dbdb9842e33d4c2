package dev.lockstep.engine.request;

import static dev.lockstep.ModelChecks.check;
import static dev.lockstep.ModelChecks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.ModelCheckingTest;
import dev.lockstep.engine.worker.Spare;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PendingSet} and {@link Spare}, the two cross-thread pieces a stream's reused receives rest on, under
 * Lincheck's model checker, as {@link ModelCheckingTest} checks the others. What they promise (their class
 * documentation): a close from any thread closes every operation tracked and every one tracked after it; a
 * request's retirement ends its use, so a track that comes late — after the retirement, even after the request
 * was reused — links nothing; and a kept request is handed to one taker at a time.
 *
 * <p>Timeout, and the retry of a "hung" verdict: as {@link ModelCheckingTest}, through the same harness
 * ({@code ModelChecks}).
 */
@Timeout(300)
class PendingSetModelTest {
    /**
     * Interleavings per scenario. The close that must use the key it tracked (not the one a reused operation names
     * now) was found, with the tracked key replaced, from 60 invocations on and missed at 40; 200 leaves room.
     */
    private static final int INVOCATIONS = 200;

    /** An operation that can only be closed: what a pending set does with the operations it tracks. */
    private abstract static class CloseOnlyOperation implements Operation<Void> {
        @Override
        public Poll<Void> poll(Waker waker) {
            throw new UnsupportedOperationException("not part of this test");
        }

        @Override
        public Void await() {
            throw new UnsupportedOperationException("not part of this test");
        }
    }

    /** An operation that only counts its closes. */
    private static final class CountingOperation extends CloseOnlyOperation {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    /**
     * A stream's close racing the admission of a receive on one thread and the retirement of another on a third:
     * afterwards the set is empty, and the receive that did not retire was closed exactly once — by the close,
     * which found it, or by its own track, which found the set closed.
     */
    @Test
    void aCloseClosesEveryTrackedOperationOnceAndLaterTracksCloseTheirs() {
        check(INVOCATIONS, () -> {
            PendingSet set = new PendingSet();
            PendingSet.Link retiring = new PendingSet.Link();
            CountingOperation retired = new CountingOperation();
            set.track(retiring, retiring.begin(), retired);
            PendingSet.Link admitted = new PendingSet.Link();
            long use = admitted.begin();
            CountingOperation live = new CountingOperation();
            boolean[] closedHere = new boolean[1];
            run(() -> set.track(admitted, use, live), () -> set.retired(retiring),
                    () -> closedHere[0] = set.closeAll());
            assertTrue(closedHere[0], "the first close closes the set");
            assertFalse(set.closeAll(), "a second close finds it closed");
            assertEquals(1, live.closes.get(), "the receive still admitted was closed once");
            assertTrue(retired.closes.get() <= 1, "the retired receive was closed at most once (harmless)");
            assertEquals(0, set.size(), "the closed set tracks nothing");
        });
    }

    /**
     * The stale track: a fiber admits a receive but reaches the lock only after the worker retired that receive
     * and a later receive reused the request, admitted and tracked it. The late track must link nothing: the set
     * holds the request once, under the later use, and a close closes the later operation and never the earlier
     * one (whose handle the earlier caller may still hold).
     */
    @Test
    void aTrackAfterTheRetirementOfItsUseLinksNothingEvenOnceTheRequestIsReused() {
        check(INVOCATIONS, () -> {
            PendingSet set = new PendingSet();
            PendingSet.Link link = new PendingSet.Link();
            long firstUse = link.begin();
            CountingOperation first = new CountingOperation();
            CountingOperation second = new CountingOperation();
            run(() -> set.track(link, firstUse, first), () -> {
                // The worker: the first use retires, the request is reused, admitted and tracked.
                set.retired(link);
                long secondUse = link.begin();
                set.track(link, secondUse, second);
            });
            assertEquals(1, set.size(), "the request is in the set once, under its later use");
            assertTrue(set.closeAll());
            assertEquals(1, second.closes.get(), "the later use's operation was closed");
            assertEquals(0, first.closes.get(), "the earlier use's operation was closed after it retired");
            set.retired(link);
            assertEquals(0, set.size());
        });
    }

    /** A fiber's reusable operation: re-pointed from use to use; counts the closes each use got, and any other. */
    private static final class RepointedOperation extends CloseOnlyOperation implements PendingSet.Repointable {
        static final long FIRST = 1;
        static final long SECOND = 2;
        volatile long key = FIRST;
        final AtomicInteger firstUseCloses = new AtomicInteger();
        final AtomicInteger secondUseCloses = new AtomicInteger();
        final AtomicInteger handleCloses = new AtomicInteger();

        @Override
        public boolean isReusable() {
            return true;
        }

        @Override
        public long userData() {
            return key;
        }

        @Override
        public void closeUse(long use, Thread closer) {
            (use == FIRST ? firstUseCloses : secondUseCloses).incrementAndGet();
        }

        /** As a registration's own close: it closes whatever use the operation names now. */
        @Override
        public void close() {
            handleCloses.incrementAndGet();
            closeUse(key, Thread.currentThread());
        }
    }

    /**
     * The reusable operation's hazard: one stream's close races its fiber, which retires the receive it tracked
     * there, re-points the same operation at a receive on a second stream and tracks it in that stream's set.
     * However they interleave, the first stream's close closes at most the first use — by its key — and never the
     * second (a close through the operation itself would reach whatever it names by then), and the second stream
     * still tracks the second use.
     */
    @Test
    void aCloseOfOneSetNeverReachesTheUseAReusedOperationMovedOnTo() {
        check(INVOCATIONS, () -> {
            PendingSet firstStream = new PendingSet();
            PendingSet secondStream = new PendingSet();
            PendingSet.Link firstReceive = new PendingSet.Link();
            PendingSet.Link secondReceive = new PendingSet.Link();
            RepointedOperation reused = new RepointedOperation();
            firstStream.track(firstReceive, firstReceive.begin(), reused);
            run(() -> {
                // The fiber: its first receive completes and retires; it moves on to the second stream.
                firstStream.retired(firstReceive);
                long use = secondReceive.begin();
                reused.key = RepointedOperation.SECOND;
                secondStream.track(secondReceive, use, reused);
            }, firstStream::closeAll);
            assertEquals(0, reused.secondUseCloses.get(), "the first stream's close reached the second use");
            assertEquals(0, reused.handleCloses.get(), "a reusable operation was closed through itself");
            assertTrue(reused.firstUseCloses.get() <= 1, "the first use was closed more than once");
            assertEquals(1, secondStream.size(), "the second stream tracks the second use");
            assertTrue(secondStream.closeAll());
            assertEquals(1, reused.secondUseCloses.get(), "the second stream's close closes the second use");
        });
    }

    /**
     * Two receives retiring and being taken again on two threads while a third takes: a kept request is never out
     * to two takers at once.
     */
    @Test
    void aKeptRequestIsHandedToOneTakerAtATime() {
        check(INVOCATIONS, () -> {
            Spare<AtomicBoolean> spare = new Spare<>();
            spare.give(new AtomicBoolean());
            AtomicInteger doubleHandOuts = new AtomicInteger();
            Runnable user = () -> {
                AtomicBoolean request = spare.take();
                if (request == null) {
                    request = new AtomicBoolean();
                }
                if (!request.compareAndSet(false, true)) {
                    doubleHandOuts.incrementAndGet();
                }
                request.set(false);
                spare.give(request);
            };
            run(user, user, () -> {
                AtomicBoolean request = spare.take();
                if (request != null && !request.compareAndSet(false, true)) {
                    doubleHandOuts.incrementAndGet();
                }
            });
            assertEquals(0, doubleHandOuts.get(), "a kept request was out to two takers at once");
        });
    }
}
