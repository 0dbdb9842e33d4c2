package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Ring;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** A sink that records completions by user data and can wait, boundedly, for the ones a test expects. */
final class Completions implements CompletionSink {
    private static final long WAIT_LIMIT_NANOS = 5_000_000_000L;

    record Completion(long userData, int result, int flags) {
    }

    private final Map<Long, Completion> byUserData = new LinkedHashMap<>();

    @Override
    public void complete(long userData, int result, int flags) {
        Completion previous = byUserData.put(userData, new Completion(userData, result, flags));
        assertNull(previous, () -> "a second completion for user data " + userData);
    }

    /** Enters the ring until every listed user data completed; fails after 5 s instead of hanging. */
    void awaitAll(Ring ring, long... userData) {
        long start = System.nanoTime();
        while (!Arrays.stream(userData).allMatch(byUserData::containsKey)) {
            if (System.nanoTime() - start > WAIT_LIMIT_NANOS) {
                fail("no completion for some of " + Arrays.toString(userData) + " after 5 s; got " + byUserData);
            }
            ring.enter(true, 100_000_000L, this);
        }
    }

    /** The result of a completion, waiting for it first. */
    int result(Ring ring, long userData) {
        awaitAll(ring, userData);
        return byUserData.get(userData).result();
    }

    Map<Long, Completion> all() {
        return byUserData;
    }
}
