package dev.lockstep.sim.sched;

import dev.lockstep.engine.worker.Worker;

/**
 * Which of a {@link Scheduler}'s worker slots run and which a step looks at: each slot is halted or not, retired or
 * not, and the slots not retired are kept ascending as the live slots (see the scheduler's class doc, "Slots"). It
 * decides nothing about what runs: the scheduler asks it which slots to look at and whether a slot's worker runs.
 *
 * <p>It draws nothing and may use only the slot numbers the scheduler gives it (a worker only names itself in an
 * error). Confined to the simulator's thread, as the scheduler is.
 */
final class WorkerSlots {

    /** For each slot, whether its worker is halted. */
    private boolean[] halted;
    /** For each slot, whether its worker is retired: halted for good and not in {@link #live}. */
    private boolean[] retired;
    /** The slots of the workers not retired, ascending: {@code live[0..liveCount-1]}. */
    private int[] live;
    private int liveCount;

    /** Slots {@code 0..count-1}, each running and live. */
    WorkerSlots(int count) {
        this.halted = new boolean[count];
        this.retired = new boolean[count];
        this.live = new int[count];
        for (int slot = 0; slot < live.length; slot++) {
            live[slot] = slot;
        }
        this.liveCount = live.length;
    }

    /** Adds slot {@code slot}, running and live; it is the largest slot yet, one past the last. */
    void add(int slot) {
        int size = slot + 1;
        halted = java.util.Arrays.copyOf(halted, size);
        retired = java.util.Arrays.copyOf(retired, size);
        live = java.util.Arrays.copyOf(live, Math.max(live.length, liveCount + 1));
        live[liveCount++] = slot; // the largest slot yet, so live stays ascending
    }

    /**
     * Halts or resumes the worker in {@code slot}.
     *
     * @throws IllegalStateException if it is retired and {@code halt} is false (the message names {@code worker})
     */
    void halt(int slot, boolean halt, Worker worker) {
        if (retired[slot] && !halt) {
            throw new IllegalStateException(worker + " of " + worker.engine() + " is retired: it cannot resume");
        }
        halted[slot] = halt;
    }

    /** Halts the worker in {@code slot} for good and takes the slot out of the live ones; again, nothing. */
    void retire(int slot) {
        halted[slot] = true;
        if (retired[slot]) {
            return;
        }
        retired[slot] = true;
        int at = 0;
        while (live[at] != slot) {
            at++;
        }
        System.arraycopy(live, at + 1, live, at, liveCount - at - 1);
        liveCount--;
    }

    /** Whether the worker in {@code slot} runs now. */
    boolean runs(int slot) {
        return !halted[slot];
    }

    /** Whether {@code slot} is among the live slots, those a step looks at. */
    boolean isLive(int slot) {
        for (int at = 0; at < liveCount; at++) {
            if (live[at] == slot) {
                return true;
            }
        }
        return false;
    }

    /** How many slots are live. */
    int liveCount() {
        return liveCount;
    }

    /** The {@code at}-th live slot, ascending; {@code at < liveCount()}. */
    int live(int at) {
        return live[at];
    }
}
