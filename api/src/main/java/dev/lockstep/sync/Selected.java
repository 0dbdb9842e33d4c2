package dev.lockstep.sync;

/**
 * The winner of a {@link Select}: which operation completed first, and its value.
 *
 * @param index the position of the winning operation in the list given to {@link Select}
 * @param value its value
 * @param <T> the value
 */
public record Selected<T>(int index, T value) {
}
