package dev.lockstep.conformance;

/** The two runtimes every case runs on. */
public enum RuntimeKind {
    /** runtime-sim: the seeded simulator, every worker on one thread. */
    SIM,
    /** runtime-uring: one io_uring ring per worker thread. */
    URING
}
