package dev.lockstep.conformance;

/**
 * The rows of the README's conformance table, in the table's order: what a group of cases checks and where its
 * cases come from. Each case says its row with {@link Group}; {@link ReadmeTableTest} counts the cases of each row
 * and holds the README's table and totals to those counts.
 */
enum ReadmeGroup {
    RUNNER("Runtime: runner (single use, the root's failure and checked exceptions), read/write options",
            "commonware `lib.rs`"),
    CLOCK("Runtime: clock (sleep, sleep-until, far future, timeout, a ready body under an expired timeout, negative"
            + " durations)", "commonware `lib.rs`"),
    MONOTONIC_CLOCK("Runtime: monotonic clock (measures sleeps, never back across workers, sleep-until waits on it)",
            "Lockstep's own"),
    RANDOM("Runtime: `Context.random()` on every worker", "Lockstep's own"),
    SUPERVISION("Runtime: supervision (spawn, abort, cascades, clone and sparse chains, sibling, root finishing)",
            "commonware `lib.rs`"),
    FAILURES("Runtime: failures (root, caught as `ExitedException`, several)", "commonware `lib.rs`"),
    SELECT("Runtime: select and race loops", "commonware `lib.rs`"),
    HANDLE("Runtime: a task's `Handle` as an operation (raced against a timer or a task, under a timeout, failed,"
            + " aborted)", "Lockstep's own"),
    STOP("Runtime: stop and stopped", "commonware `lib.rs`"),
    LATE_WAKER("Runtime: late waker", "commonware `lib.rs`"),
    TASK_LIFECYCLE("Runtime: what a task's end leaves behind (its own exception over a leak, resources handed to"
            + " `spawn`)", "Lockstep's own"),
    CLOSING("Runtime: close means close (awaiters woken, unobserved results' fds closed)", "Lockstep's own"),
    INTERRUPTS("Runtime: `Thread.interrupt()` and Lockstep waits, in tasks and on plain threads", "Lockstep's own"),
    TIME_TASK_PROBES("Runtime: edge cases of time and tasks, one probe table per runtime", "Lockstep's own"),
    SYNC("Task primitives of `dev.lockstep.sync` (channel, mutex, semaphore, one-shot, join, select, future"
            + " adapters)", "Lockstep's own"),
    STORAGE_SEED("Storage: the checks of `run_storage_tests` that the API has", "commonware `storage`"),
    STORAGE_LIB("Storage: `lib.rs` storage cases", "commonware `lib.rs`"),
    STORAGE_OWN("Storage: Lockstep's own promises (hold, restart durability, refused calls, > 2 GiB, long and binary"
            + " names)", "ARCHITECTURE.md §3.7"),
    RENAME("Storage: rename and partition sync (atomic replace, open handles across it, typed refusals, the manifest"
            + " pattern across a restart)", "Lockstep's own"),
    OPEN_OPTIONS("Storage: open options (create only if missing, open only if present, each with direct I/O, racing"
            + " creates)", "Lockstep's own"),
    ALLOCATE("Storage: preallocation (`Blob.allocate`: grows with zeros, never shrinks, survives a reopen, direct I/O,"
            + " refusals)", "Lockstep's own"),
    SYNC_WRITES("Storage: `WriteOptions.SYNC` writes from many fibers at once, each durable when it completes",
            "Lockstep's own"),
    METADATA("Storage: metadata (open, remove, scan, resize) racing across fibers and workers", "Lockstep's own"),
    STORAGE_PROBES("Storage: edge cases, one probe table per runtime", "Lockstep's own"),
    BUFFERS("Buffers: `readInto`, `writeFrom`, `recvInto`, `sendFrom` over pooled `IoBuffer`s (ownership, direct I/O"
            + " alignment, refusals)", "commonware `storage`, Lockstep's own"),
    WAITING_BUFFER_CALLS("Buffers: the calls that wait themselves (`readFully`, `writeFully`, `recvFully`,"
            + " `sendFully`)", "Lockstep's own"),
    NETWORK("Network: echo, vectored, clients, large data, errors, peek, poisoning, refusals at the call, idle"
            + " connections", "commonware `network`, Lockstep's own"),
    NETWORK_EDGES("Network: addresses, end of stream, use after close, closes racing waits, the accept queue",
            "Lockstep's own"),
    HALF_CLOSE("Network: half-close (a request ended by it and its response, a pending receive)", "Lockstep's own"),
    SOCKET_OPTIONS("Network: socket options (every option set, small buffers make a sender wait, default buffers,"
            + " refusals)", "Lockstep's own"),
    FLOW_CONTROL("Network: flow control (a peer that never reads, two senders that never read, reset on close)", "Lockstep's own"),
    RECEIVE_MEMORY("Network: receive memory bounded by `ReceiveLimits` and by what arrived", "Lockstep's own"),
    PROPERTIES("Properties (`@Property`): storage sequences against a model", "Lockstep", "60 tries"),
    DIFFERENTIAL("Differential: seeded storage and network sequences, byte for byte, error for error"
            + " (`differences.md`)", "Lockstep", "12 seeds × 1 and 2 workers");

    /** What the row's cases check, as the README's first column. */
    final String behaviour;
    /** Where the cases come from, as the README's last column. */
    final String source;
    /** Said after the count in parentheses, or empty. */
    final String note;

    ReadmeGroup(String behaviour, String source) {
        this(behaviour, source, "");
    }

    ReadmeGroup(String behaviour, String source, String note) {
        this.behaviour = behaviour;
        this.source = source;
        this.note = note;
    }
}
