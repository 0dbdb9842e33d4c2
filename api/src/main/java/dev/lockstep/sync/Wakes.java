package dev.lockstep.sync;

import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;

/**
 * Wakers collected while a primitive's monitor is held, woken (or released) once it is not: no waker callback ever
 * runs under a primitive's monitor, so a callback may poll, send or unlock on the same primitive.
 */
final class Wakes {
    private List<Waker> toWake;
    private List<Waker> toRelease;

    void wake(Waker waker) {
        if (waker != null) {
            if (toWake == null) {
                toWake = new ArrayList<>(2);
            }
            toWake.add(waker);
        }
    }

    void release(Waker waker) {
        if (waker != null) {
            if (toRelease == null) {
                toRelease = new ArrayList<>(1);
            }
            toRelease.add(waker);
        }
    }

    /** Runs the collected callbacks in the order they were collected; call with no monitor held. */
    void run() {
        if (toWake != null) {
            for (Waker waker : toWake) {
                waker.wake();
            }
        }
        if (toRelease != null) {
            for (Waker waker : toRelease) {
                waker.release();
            }
        }
    }
}
