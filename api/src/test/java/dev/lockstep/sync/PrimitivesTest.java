package dev.lockstep.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ClosedException;
import dev.lockstep.CountingWaker;
import dev.lockstep.Handle;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The primitives' semantics, one thread, polled by hand: order, closing, give-back of unobserved results, the
 * waker protocol (retain once, wake once, release what is dropped) and bad input. The threaded proof is
 * {@link PrimitivesStressTest}; the runtimes' proof is conformance-tests' {@code SyncConformanceTest}.
 */
class PrimitivesTest {
    private static <T> T ready(Operation<T> operation) {
        Poll<T> poll = operation.poll(Waker.noop());
        assertTrue(poll.isReady(), "expected ready");
        return poll.get();
    }

    private static void pending(Operation<?> operation, Waker waker) {
        assertFalse(operation.poll(waker).isReady(), "expected pending");
    }

    @Test
    void channelKeepsOrderAndMakesSendersWaitWhenFull() {
        Channel<Integer> channel = Channel.bounded(2);
        ready(channel.send(1));
        ready(channel.send(2));
        Operation<Void> third = channel.send(3);
        CountingWaker sender = new CountingWaker();
        pending(third, sender);
        assertEquals(1, sender.retains());
        pending(third, sender); // the same waker is not retained twice
        assertEquals(1, sender.retains());
        assertEquals(1, ready(channel.receive()));
        assertEquals(1, sender.wakes()); // room made: the waiting send was accepted and woken
        ready(third);
        assertEquals(2, ready(channel.receive()));
        assertEquals(3, ready(channel.receive()));
        assertTrue(channel.trySend(4));
        assertEquals(4, channel.tryReceive());
        assertNull(channel.tryReceive());
    }

    @Test
    void aWaitingReceiverGetsTheNextSendDirectly() {
        Channel<String> channel = Channel.bounded(1);
        Operation<String> first = channel.receive();
        Operation<String> second = channel.receive();
        CountingWaker one = new CountingWaker();
        CountingWaker two = new CountingWaker();
        pending(first, one);
        pending(second, two);
        ready(channel.send("a"));
        assertEquals(1, one.wakes());
        assertEquals(0, two.wakes());
        assertEquals("a", ready(first));
        assertEquals(0, channel.size());
    }

    @Test
    void closingAChannelFailsWaitingSendersKeepsBufferedValuesThenFailsReceivers() {
        Channel<Integer> channel = Channel.bounded(1);
        ready(channel.send(1));
        Operation<Void> blocked = channel.send(2);
        CountingWaker sender = new CountingWaker();
        pending(blocked, sender);
        channel.close();
        channel.close(); // idempotent
        assertEquals(1, sender.wakes());
        ClosedException refused = assertThrows(ClosedException.class, () -> ready(blocked));
        assertEquals("cannot send to a closed channel (capacity 1)", refused.getMessage());
        assertThrows(ClosedException.class, () -> ready(channel.send(3)));
        assertThrows(ClosedException.class, () -> channel.trySend(3));
        assertEquals(1, ready(channel.receive())); // accepted before the close: still there
        assertThrows(ClosedException.class, () -> ready(channel.receive()));
        assertThrows(ClosedException.class, channel::tryReceive);
        assertTrue(channel.isClosed());
    }

    @Test
    void closingPendingOperationsLeavesTheLineAndReleasesTheirWakers() {
        Channel<Integer> channel = Channel.bounded(1);
        Operation<Integer> receive = channel.receive();
        CountingWaker waker = new CountingWaker();
        pending(receive, waker);
        receive.close();
        assertEquals(1, waker.releases());
        assertEquals(0, waker.wakes());
        ready(channel.send(7)); // went to the buffer, not to the closed receive
        assertEquals(1, channel.size());
        Operation<Void> send = channel.send(8);
        pending(send, Waker.noop()); // full
        send.close();                // a send closed while pending is not sent
        assertEquals(7, ready(channel.receive()));
        assertNull(channel.tryReceive());
        assertThrows(ClosedException.class, () -> ready(receive)); // a closed operation stays closed
    }

    @Test
    void aCloseFromAnotherThreadWakesTheWaitingPartyWhichThenReadsClosed() throws InterruptedException {
        Channel<Integer> channel = Channel.bounded(1);
        Operation<Integer> receive = channel.receive();
        CountingWaker waker = new CountingWaker();
        pending(receive, waker);
        Thread closer = Thread.ofPlatform().name("closer").start(receive::close);
        closer.join();
        assertEquals(1, waker.wakes(), "close means close: the awaiter of another thread is woken");
        assertEquals(0, waker.releases());
        assertThrows(ClosedException.class, () -> ready(receive));
        assertTrue(channel.trySend(7), "the closed receive left the line");
        assertEquals(7, channel.tryReceive());
    }

    @Test
    void aReceiveClosedAfterItWasHandedAValueGivesTheValueBack() {
        Channel<String> channel = Channel.bounded(2);
        ready(channel.send("first"));
        ready(channel.send("second"));
        Operation<String> unobserved = channel.receive(); // handed "first" at once
        unobserved.close();                                // nobody saw it
        assertEquals("first", ready(channel.receive()));
        assertEquals("second", ready(channel.receive()));
        // Given to the next waiting receiver when there is one.
        Operation<String> waiting = channel.receive();
        Operation<String> handed = channel.receive();
        pending(waiting, Waker.noop());
        ready(channel.send("x"));                          // goes to `waiting`
        Operation<String> lateReceiver = channel.receive();
        pending(lateReceiver, Waker.noop());
        waiting.close();                                   // unobserved: "x" moves on to the next in line
        assertEquals("x", ready(handed));
        pending(lateReceiver, Waker.noop());
    }

    @Test
    void badChannelInputIsRefusedNamingTheValue() {
        assertEquals("a channel's capacity must be at least 1, was 0",
                assertThrows(IllegalArgumentException.class, () -> Channel.bounded(0)).getMessage());
        Channel<String> channel = Channel.bounded(1);
        assertThrows(NullPointerException.class, () -> channel.send(null));
        assertThrows(NullPointerException.class, () -> channel.receive().poll(null));
    }

    @Test
    void semaphoreGrantsFirstComeFirstServedAndHeadOfLineBlocks() {
        Semaphore semaphore = new Semaphore(3);
        Lease two = ready(semaphore.acquire(2));
        Operation<Lease> big = semaphore.acquire(3);
        Operation<Lease> small = semaphore.acquire(1);
        pending(big, Waker.noop());
        pending(small, Waker.noop()); // one permit is free, but the big acquire is first in line
        assertNull(semaphore.tryAcquire(1));
        two.close();
        two.close(); // idempotent: gives back once
        Lease bigLease = ready(big);
        assertEquals(3, bigLease.permits());
        pending(small, Waker.noop());
        bigLease.close();
        assertTrue(bigLease.isReleased());
        ready(small).close();
        assertEquals(3, semaphore.available());
        assertEquals("permits must be between 1 and 3, was 4",
                assertThrows(IllegalArgumentException.class, () -> semaphore.acquire(4)).getMessage());
        assertEquals("permits must be between 1 and 3, was 0",
                assertThrows(IllegalArgumentException.class, () -> semaphore.tryAcquire(0)).getMessage());
        assertEquals("a semaphore needs at least 1 permit, was 0",
                assertThrows(IllegalArgumentException.class, () -> new Semaphore(0)).getMessage());
    }

    @Test
    void closingAPendingAcquireAtTheHeadLetsThoseBehindIt() {
        Semaphore semaphore = new Semaphore(2);
        Lease one = ready(semaphore.acquire(1));
        Operation<Lease> big = semaphore.acquire(2);
        Operation<Lease> small = semaphore.acquire(1);
        CountingWaker waiter = new CountingWaker();
        pending(small, waiter);
        big.close();
        assertEquals(1, waiter.wakes());
        ready(small).close();
        one.close();
        assertEquals(2, semaphore.available());
    }

    @Test
    void anUnobservedGrantedLockIsUnlockedWhenClosed() {
        Mutex mutex = new Mutex();
        Lease held = ready(mutex.lock());
        Operation<Lease> next = mutex.lock();
        Operation<Lease> after = mutex.lock();
        pending(next, Waker.noop());
        pending(after, Waker.noop());
        held.close();   // `next` is granted...
        next.close();   // ...but nobody observed it: the mutex passes on
        Lease third = ready(after);
        assertTrue(mutex.isLocked());
        third.close();
        assertFalse(mutex.isLocked());
        Lease again = mutex.tryLock();
        assertTrue(again != null && mutex.tryLock() == null);
        again.close();
    }

    @Test
    void oneShotGivesTheFirstValueToEveryWaiter() {
        OneShot<String> value = new OneShot<>();
        Operation<String> early = value.get();
        CountingWaker waker = new CountingWaker();
        pending(early, waker);
        assertTrue(value.complete("v"));
        assertFalse(value.complete("w"));
        assertFalse(value.fail(new IllegalStateException("late")));
        assertEquals(1, waker.wakes());
        assertEquals("v", ready(early));
        assertEquals("v", ready(value.get()));
        OneShot<String> failed = new OneShot<>();
        IllegalStateException boom = new IllegalStateException("boom");
        failed.fail(boom);
        assertSame(boom, assertThrows(IllegalStateException.class, () -> ready(failed.get())));
        assertThrows(NullPointerException.class, () -> failed.fail(null));
    }

    @Test
    void selectTakesTheFirstReadyInListOrderAndClosesTheOthers() {
        Channel<String> a = Channel.bounded(1);
        Channel<String> b = Channel.bounded(1);
        Operation<String> fromA = a.receive();
        Operation<String> fromB = b.receive();
        Select<String> race = Select.first(fromA, fromB);
        CountingWaker waker = new CountingWaker();
        pending(race, waker);
        ready(b.send("bee"));
        assertEquals(1, waker.wakes());
        ready(a.send("ay"));   // now both are ready: the race polls in order, but a's receive got "ay" later
        Selected<String> winner = ready(race);
        assertEquals(0, winner.index()); // both ready at the poll: the earlier in the list wins
        assertEquals("ay", winner.value());
        // The loser was closed; the value it had been handed went back to its channel.
        assertEquals("bee", b.tryReceive());
        assertThrows(ClosedException.class, () -> ready(fromB));
        assertEquals("a race needs at least one operation, was given none",
                assertThrows(IllegalArgumentException.class, () -> Select.first(List.of())).getMessage());
    }

    @Test
    void aFailedWinnerFailsTheRaceAndClosingTheRaceClosesAll() {
        Channel<String> closed = Channel.bounded(1);
        closed.close();
        Channel<String> open = Channel.bounded(1);
        Operation<String> waiting = open.receive();
        assertThrows(ClosedException.class, () -> ready(Select.first(closed.receive(), waiting)));
        ready(open.send("kept")); // the loser left the line
        assertEquals("kept", open.tryReceive());
        Operation<String> first = open.receive();
        Operation<String> second = open.receive();
        Select<String> race = Select.first(first, second);
        pending(race, Waker.noop());
        race.close();
        assertTrue(open.trySend("nobody waits"));
        assertEquals(1, open.size());
    }

    /** A handle whose outcome the test sets. */
    private static final class FakeHandle<T> implements Handle<T> {
        private final OneShot<T> outcome = new OneShot<>();
        private final Operation<T> view = outcome.get();
        private Poll<T> seen;

        @Override
        public T await() {
            return view.await();
        }

        @Override
        public Poll<T> poll(Waker waker) {
            if (seen == null) {
                Poll<T> poll = view.poll(waker);
                if (poll.isReady()) {
                    seen = poll;
                }
                return poll;
            }
            return seen;
        }

        @Override
        public void abort() {
            outcome.fail(new ClosedException("aborted"));
        }

        @Override
        public void close() {
            // Handle's contract: closing ends no task and hides no outcome.
        }

        @Override
        public boolean isDone() {
            return outcome.isDone();
        }
    }

    @Test
    void joinWaitsForAllInOrderAndFailsAtTheFirstFailure() {
        FakeHandle<Integer> one = new FakeHandle<>();
        FakeHandle<Integer> two = new FakeHandle<>();
        Join<Integer> join = Join.all(List.of(one, two));
        CountingWaker waker = new CountingWaker();
        pending(join, waker);
        two.outcome.complete(2);
        pending(join, waker);
        one.outcome.complete(1);
        assertEquals(List.of(1, 2), ready(join));
        assertEquals(List.of(), ready(Join.<Integer>all(List.of())));
        FakeHandle<Integer> ok = new FakeHandle<>();
        FakeHandle<Integer> bad = new FakeHandle<>();
        Join<Integer> failing = Join.all(List.of(ok, bad));
        pending(failing, Waker.noop());
        bad.abort();
        assertThrows(ClosedException.class, () -> ready(failing));
    }

    @Test
    void futuresAdaptBothWays() throws Exception {
        Channel<String> channel = Channel.bounded(1);
        CompletableFuture<String> future = Futures.toFuture(channel.receive());
        assertFalse(future.isDone());
        ready(channel.send("hello"));
        assertEquals("hello", future.getNow(null));
        // Cancelling the future closes the operation: the channel keeps what is sent next.
        CompletableFuture<String> cancelled = Futures.toFuture(channel.receive());
        cancelled.cancel(false);
        assertTrue(channel.trySend("kept"));
        assertEquals("kept", channel.tryReceive());

        CompletableFuture<Integer> source = new CompletableFuture<>();
        Operation<Integer> operation = Futures.fromFuture(source);
        CountingWaker waker = new CountingWaker();
        pending(operation, waker);
        source.complete(42);
        assertEquals(1, waker.wakes());
        assertEquals(42, ready(operation));
        CompletableFuture<Integer> failing = new CompletableFuture<>();
        failing.completeExceptionally(new java.io.IOException("disk"));
        CompletionException wrapped = assertThrows(CompletionException.class, () -> ready(Futures.fromFuture(failing)));
        assertInstanceOf(java.io.IOException.class, wrapped.getCause());
        CompletableFuture<Integer> gone = new CompletableFuture<>();
        gone.cancel(false);
        ClosedException closed = assertThrows(ClosedException.class, () -> ready(Futures.fromFuture(gone)));
        assertInstanceOf(CancellationException.class, closed.getCause());
    }

    @Test
    void aPlainThreadAwaitsThroughTheFallbackAwaiter() throws Exception {
        Channel<Integer> channel = Channel.bounded(1);
        List<Integer> got = new ArrayList<>();
        Thread consumer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 100; i++) {
                got.add(channel.receive().await());
            }
        });
        for (int i = 0; i < 100; i++) {
            channel.send(i).await();
        }
        consumer.join();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add(i);
        }
        assertEquals(expected, got);
    }
}
