package dev.lockstep.engine.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Reentrant;
import dev.lockstep.Poll;
import dev.lockstep.engine.Support;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link dev.lockstep.Waker}'s contract on the operations that wait through a {@link WaitList} (a task's
 * {@link TaskHandle#poll}, a stop signal's condition): a waker is retained once however often an equivalent one
 * polls, and every stored copy is consumed exactly once, by a wake or a release.
 */
class WaitListTest {

    @Test
    void aConditionPolledAgainRetainsItsWakerOnceAndWakesItOnce() {
        AtomicBoolean ready = new AtomicBoolean();
        WaitList list = new WaitList();
        WaitList.Condition condition = new WaitList.Condition(ready::get, list);
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        assertFalse(condition.poll(callbacks.waker()).isReady());
        assertFalse(condition.poll(callbacks.waker()).isReady());
        assertEquals(1, callbacks.retained(), "an equivalent waker is not retained again");
        ready.set(true);
        list.wakeAll();
        assertEquals(1, callbacks.wakes());
        assertTrue(condition.poll(callbacks.waker()).isReady());
        callbacks.assertBalanced();
    }

    @Test
    void aConditionPolledWithAnotherPartysWakerReleasesTheFirst() {
        WaitList list = new WaitList();
        WaitList.Condition condition = new WaitList.Condition(() -> false, list);
        Reentrant first = new Reentrant(Support::criticalSection);
        Reentrant second = new Reentrant(Support::criticalSection);
        condition.poll(first.waker());
        condition.poll(second.waker());
        assertEquals(1, first.releases(), "the first party's copy was released when the second polled");
        first.assertBalanced();
        list.wakeAll();
        assertEquals(1, second.wakes(), "only the second party is woken");
        second.assertBalanced();
    }

    @Test
    void aClosedConditionReleasesItsListedCopy() {
        WaitList list = new WaitList();
        WaitList.Condition condition = new WaitList.Condition(() -> false, list);
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        condition.poll(callbacks.waker());
        condition.close();
        assertEquals(1, callbacks.releases());
        list.wakeAll();
        assertEquals(0, callbacks.wakes(), "a released copy is never woken");
        callbacks.assertBalanced();
    }

    @Test
    void closingOneOfTwoConditionsPolledWithEquivalentWakersLeavesTheOtherRegistered() {
        WaitList list = new WaitList();
        WaitList.Condition first = new WaitList.Condition(() -> false, list);
        WaitList.Condition second = new WaitList.Condition(() -> false, list);
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        first.poll(callbacks.waker());
        second.poll(callbacks.waker());
        first.close();
        assertEquals(1, callbacks.releases(), "the closed wait's copy was released");
        list.wakeAll();
        assertEquals(1, callbacks.wakes(), "the wait still open was woken");
        callbacks.assertBalanced();
    }

    @Test
    void aTaskPolledTwiceRetainsOnceAndWakesOnceWhenItEnds() {
        TaskHandle<String> handle = new TaskHandle<>(null, null, "task");
        Reentrant callbacks = new Reentrant(Support::criticalSection);
        assertFalse(handle.poll(callbacks.waker()).isReady());
        assertFalse(handle.poll(callbacks.waker()).isReady());
        assertEquals(1, callbacks.retained(), "an equivalent waker is not retained again");
        handle.succeed("done");
        assertEquals(1, callbacks.wakes());
        Poll<String> outcome = handle.poll(callbacks.waker());
        assertEquals("done", outcome.get());
        assertEquals(1, callbacks.retained(), "a poll that finds the outcome stores nothing");
        callbacks.assertBalanced();
    }
}
