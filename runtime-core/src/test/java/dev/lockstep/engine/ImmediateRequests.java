package dev.lockstep.engine;

import java.util.function.Supplier;

/**
 * The engine's own immediate request ({@link Immediate}: synchronous work its worker's service turn runs, never a
 * ring slot) for tests outside this package, through runtime-core's test jar: the simulator's tests plant bugs
 * with it in copies of engine bookkeeping. Test code only.
 */
public final class ImmediateRequests {
    private ImmediateRequests() {
    }

    /**
     * A request whose value is what {@code body} returns when the worker's service turn runs it; a
     * {@code RuntimeException} it throws fails the request with that exception.
     *
     * @param description names the request in failures and traces
     * @param body the synchronous work, run on the worker's thread
     * @return the request, to register with {@link Worker#register}
     */
    public static Request of(String description, Supplier<Object> body) {
        return new Immediate(description, body);
    }
}
