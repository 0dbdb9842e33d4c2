package dev.lockstep.demo.raft;

/**
 * One entry of a Raft log: the term of the leader that appended it and the client's command.
 *
 * @param term the term, at least 1
 * @param command the command, any value (the replicated state machine is the sequence of commands)
 */
public record Entry(long term, long command) {
    /**
     * Checks the term.
     *
     * @throws IllegalArgumentException naming the term if it is below 1
     */
    public Entry {
        if (term < 1) {
            throw new IllegalArgumentException("an entry's term must be at least 1, was " + term);
        }
    }
}
