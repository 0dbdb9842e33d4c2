package dev.lockstep.sync;

import dev.lockstep.Operation;
import dev.lockstep.spi.Awaiter;
import java.util.ServiceLoader;

/**
 * Finds the runtime's {@link Awaiter} once. Without a runtime on the class path (a plain unit test of a data
 * structure) an operation is awaited by parking the calling thread, woken by the operation's waker, and an
 * interrupt ends the wait as on a plain thread with a runtime ({@link Operation#await()}).
 */
final class Awaiting {
    private static final Awaiter AWAITER = load();

    private Awaiting() {
    }

    private static Awaiter load() {
        for (Awaiter found : ServiceLoader.load(Awaiter.class, Awaiter.class.getClassLoader())) {
            return found;
        }
        return Awaiter::parkThread;
    }

    static <T> T await(Operation<T> operation) {
        return AWAITER.await(operation);
    }
}
