package dev.lockstep.engine.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link LiveFibers}' list of started fibers, which leak reports and the simulator's look for a fiber waiting
 * outside Lockstep read: in start order whatever ends in between, each fiber once, and a fiber that ends without
 * having been listed changes nothing.
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
    void removingAFiberThatIsNotListedChangesNothing() {
        LiveFibers live = new LiveFibers();
        Fiber a = fiber("a");
        Fiber b = fiber("b");
        live.add(a);
        live.remove(b);
        live.remove(a);
        live.remove(a);
        assertEquals(List.of(), live.snapshot());
        live.add(b);
        assertEquals(List.of(b), live.snapshot(), "a second removal of a did not unlink b");
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
