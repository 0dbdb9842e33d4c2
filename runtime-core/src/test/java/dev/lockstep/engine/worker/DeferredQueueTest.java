package dev.lockstep.engine.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Waker;
import dev.lockstep.engine.request.Request;
import dev.lockstep.kernel.Ring;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worker's deferred queue runs wakes, releases and callbacks in the order they were queued, whatever their
 * kind and however far it grew, and a callback that throws leaves the rest queued: the driver relies on that
 * order (a result's wake after the release that hands a buffer back, a channel's send after its close).
 */
class DeferredQueueTest {
    private final List<String> ran = new ArrayList<>();

    private Waker waker(String name) {
        return new Waker() {
            @Override
            public void wake() {
                ran.add("wake " + name);
            }

            @Override
            public void release() {
                ran.add("release " + name);
            }
        };
    }

    private Request request(String name) {
        return new Request() {
            @Override
            public Kind kind() {
                return Kind.IMMEDIATE;
            }

            @Override
            public void release(Ring ring) {
                ran.add("request " + name);
            }

            @Override
            public String describe() {
                return name;
            }
        };
    }

    @Test
    void entriesOfEveryKindRunInQueueOrderAcrossGrowth() {
        DeferredQueue queue = new DeferredQueue();
        List<String> expected = new ArrayList<>();
        // Start past the initial capacity's wrap point: take a few first, so the ring buffer wraps when it grows.
        for (int i = 0; i < 5; i++) {
            String name = "warm" + i;
            queue.run(() -> ran.add(name));
        }
        for (int i = 0; i < 5; i++) {
            assertTrue(queue.runOne(null));
        }
        ran.clear();
        for (int i = 0; i < 100; i++) {
            String name = Integer.toString(i);
            switch (i % 4) {
                case 0 -> {
                    queue.wake(waker(name));
                    expected.add("wake " + name);
                }
                case 1 -> {
                    queue.release(waker(name));
                    expected.add("release " + name);
                }
                case 2 -> {
                    queue.release(request(name));
                    expected.add("request " + name);
                }
                default -> {
                    queue.run(() -> ran.add("run " + name));
                    expected.add("run " + name);
                }
            }
        }
        while (queue.runOne(null)) {
            // drain
        }
        assertEquals(expected, ran);
        assertTrue(queue.isEmpty());
        assertFalse(queue.runOne(null));
    }

    @Test
    void aCallbackQueuedWhileRunningRunsAfterTheOthers() {
        DeferredQueue queue = new DeferredQueue();
        queue.run(() -> {
            ran.add("first");
            queue.run(() -> ran.add("queued by first"));
        });
        queue.wake(waker("second"));
        while (queue.runOne(null)) {
            // drain
        }
        assertEquals(List.of("first", "wake second", "queued by first"), ran);
    }

    @Test
    void aThrowingEntryIsGoneAndTheRestStayQueued() {
        DeferredQueue queue = new DeferredQueue();
        queue.run(() -> {
            throw new IllegalStateException("boom");
        });
        queue.wake(waker("after"));
        assertThrows(IllegalStateException.class, () -> queue.runOne(null));
        assertFalse(queue.isEmpty());
        assertTrue(queue.runOne(null));
        assertEquals(List.of("wake after"), ran);
        assertTrue(queue.isEmpty());
    }
}
