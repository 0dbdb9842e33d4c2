package dev.lockstep.sim;

/**
 * What {@link SimRunner#startAndRecover} returns: how the task ended, and the checkpoint to start the next run
 * from.
 *
 * @param outcome how the root task ended
 * @param checkpoint the state after the crash that ended the run
 * @param <T> the task's value
 */
public record Recovered<T>(Outcome<T> outcome, Checkpoint checkpoint) {
}
