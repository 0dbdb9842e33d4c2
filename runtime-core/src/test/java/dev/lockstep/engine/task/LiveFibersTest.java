package dev.lockstep.engine.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link LiveFibers}' list of started fibers, which leak reports and the simulator's look for a fiber waiting
 * outside Lockstep read: in start order whatever ends in between, each fiber once. Adding a fiber that is listed
 * (here or in another engine's list) or removing one that is not listed here is a bug its asserts report (every test
 * JVM runs with {@code -ea}), before either list changes.
 */
class LiveFibersTest {

    private static Fiber fiber(String label) {
        return new Fiber(null, label, null);
    }

    @Test
    void theListKeepsStartOrderAcrossRemovalsAtEitherEndAndInTheMiddle() {
        LiveFibers live = new LiveFibers();
        Fiber a = fiber("a");
        Fiber b = fiber("b");
        Fiber c = fiber("c");
        Fiber d = fiber("d");
        live.add(a);
        live.add(b);
        live.add(c);
        live.add(d);
        assertEquals(List.of(a, b, c, d), live.snapshot());
        live.remove(b);
        assertEquals(List.of(a, c, d), live.snapshot(), "a fiber from the middle");
        live.remove(a);
        assertEquals(List.of(c, d), live.snapshot(), "the first");
        live.remove(d);
        assertEquals(List.of(c), live.snapshot(), "the last");
        Fiber e = fiber("e");
        live.add(e);
        assertEquals(List.of(c, e), live.snapshot(), "a fiber started after removals goes last");
        live.remove(c);
        live.remove(e);
        assertEquals(List.of(), live.snapshot(), "empty once every fiber ended");
        live.add(a);
        assertEquals(List.of(a), live.snapshot(), "a list emptied takes fibers again");
    }

    @Test
    void aFiberAddedTwiceIsRefusedAndTheListKeepsItOnce() {
        LiveFibers live = new LiveFibers();
        Fiber a = fiber("a");
        Fiber b = fiber("b");
        live.add(a);
        live.add(b);
        AssertionError last = assertThrows(AssertionError.class, () -> live.add(b));
        assertTrue(last.getMessage().contains("'b' added while already listed here"), last.getMessage());
        AssertionError first = assertThrows(AssertionError.class, () -> live.add(a));
        assertTrue(first.getMessage().contains("'a' added while already listed here"), first.getMessage());
        assertEquals(List.of(a, b), live.snapshot(), "each fiber once, no cycle");
        assertEquals(null, live.firstWaitingOutsideLockstep(), "the scan copies two fibers and ends");
    }

    @Test
    void aFiberListedInAnotherEngineIsRefusedByAddAndRemove() {
        LiveFibers mine = new LiveFibers();
        LiveFibers other = new LiveFibers();
        Fiber a = fiber("a");
        Fiber theirs = fiber("theirs");
        mine.add(a);
        other.add(theirs);
        AssertionError added = assertThrows(AssertionError.class, () -> mine.add(theirs));
        assertTrue(added.getMessage().contains("in another engine's live fibers"), added.getMessage());
        AssertionError removed = assertThrows(AssertionError.class, () -> mine.remove(theirs));
        assertTrue(removed.getMessage().contains("'theirs' removed but listed in another engine's"),
                removed.getMessage());
        assertEquals(List.of(a), mine.snapshot());
        assertEquals(List.of(theirs), other.snapshot(), "the other list still holds its fiber");
        other.remove(theirs);
        assertEquals(List.of(), other.snapshot());
    }

    @Test
    void removingAFiberThatIsNotListedIsRefusedAndChangesNothing() {
        LiveFibers live = new LiveFibers();
        Fiber a = fiber("a");
        Fiber b = fiber("b");
        live.add(a);
        AssertionError never = assertThrows(AssertionError.class, () -> live.remove(b));
        assertTrue(never.getMessage().contains("'b' removed but not listed"), never.getMessage());
        live.remove(a);
        AssertionError twice = assertThrows(AssertionError.class, () -> live.remove(a));
        assertTrue(twice.getMessage().contains("'a' removed but not listed"), twice.getMessage());
        assertEquals(List.of(), live.snapshot());
        live.add(b);
        assertEquals(List.of(b), live.snapshot(), "a second removal of a did not unlink b");
        live.add(a);
        assertEquals(List.of(b, a), live.snapshot(), "a removed fiber may be listed again");
    }

    @Test
    void theWaitingScanCopiesMoreFibersThanItsFirstArrayHolds() {
        LiveFibers live = new LiveFibers();
        java.util.List<Fiber> started = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Fiber fiber = fiber("f" + i);
            started.add(fiber);
            live.add(fiber);
        }
        // None has a thread yet (state NEW), so none waits outside Lockstep: the scan copies all 40 and finds none.
        assertEquals(null, live.firstWaitingOutsideLockstep());
        assertEquals(started, live.snapshot());
    }
}
