package dev.lockstep.sync;

/**
 * The winner of a two-way race ({@link Select#either}), typed: the first operation's value or the second's.
 * Taken apart with a switch, no cast:
 *
 * <pre>{@code
 * switch (Select.either(events.receive(), ctx.sleeper(heartbeat)).await()) {
 *     case Either.First<Event, Void>(Event event) -> handle(event);
 *     case Either.Second<Event, Void> timedOut -> sendHeartbeat();
 * }
 * }</pre>
 *
 * @param <A> the first operation's value
 * @param <B> the second operation's value
 */
public sealed interface Either<A, B> {

    /**
     * The first operation won.
     *
     * @param value its value
     * @param <A> the first operation's value
     * @param <B> the second operation's value
     */
    record First<A, B>(A value) implements Either<A, B> {
    }

    /**
     * The second operation won.
     *
     * @param value its value
     * @param <A> the first operation's value
     * @param <B> the second operation's value
     */
    record Second<A, B>(B value) implements Either<A, B> {
    }
}
