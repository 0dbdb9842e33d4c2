package dev.lockstep;

import java.util.Objects;

/**
 * The outcome of one poll: pending, or ready with a value or a failure.
 *
 * @param <T> the value
 */
public sealed interface Poll<T> {

    /**
     * Pending.
     *
     * @param <T> the value
     * @return the shared pending instance
     */
    @SuppressWarnings("unchecked")
    static <T> Poll<T> pending() {
        return (Poll<T>) Pending.INSTANCE;
    }

    /**
     * Ready with a value.
     *
     * @param value may be null
     * @param <T> the value type
     * @return ready
     */
    static <T> Poll<T> ready(T value) {
        return new Ready<>(value, null);
    }

    /**
     * Ready with a failure.
     *
     * @param failure not null
     * @param <T> the value type
     * @return ready
     */
    static <T> Poll<T> failed(RuntimeException failure) {
        return new Ready<>(null, Objects.requireNonNull(failure, "failure"));
    }

    /**
     * Whether ready.
     *
     * @return true if ready
     */
    boolean isReady();

    /**
     * The value of a ready poll.
     *
     * @return the value
     * @throws RuntimeException the failure, if the request failed
     * @throws IllegalStateException if pending
     */
    T get();

    /** Pending. */
    final class Pending<T> implements Poll<T> {
        private static final Pending<Object> INSTANCE = new Pending<>();

        private Pending() {
        }

        @Override
        public boolean isReady() {
            return false;
        }

        @Override
        public T get() {
            throw new IllegalStateException("poll is pending");
        }

        @Override
        public String toString() {
            return "Pending";
        }
    }

    /**
     * Ready with a value or a failure.
     *
     * @param value the value when {@code failure} is null
     * @param failure the failure, or null
     * @param <T> the value type
     */
    record Ready<T>(T value, RuntimeException failure) implements Poll<T> {
        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public T get() {
            if (failure != null) {
                throw failure;
            }
            return value;
        }
    }
}
