package dev.lockstep.engine;

import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ring request for engine tests: a NOP-like submission whose completion value becomes the result. Counts
 * its submissions and releases so tests see resubmission and retirement; {@code retained} makes it behave like
 * a write (never cancelled).
 */
public final class ScriptedRequest extends Request {
    static final AtomicInteger RELEASED = new AtomicInteger();
    public final String name;
    /** Releases of this instance: exactly one once it retired. */
    public final AtomicInteger releases = new AtomicInteger();
    /** Set if {@link #release} ran while its worker's state was borrowed (ARCHITECTURE.md §3.2 forbids it). */
    public volatile boolean releasedInsideBorrow;
    final boolean retained;
    final int fd;
    int submissions;
    public boolean closedEarly;

    public ScriptedRequest(String name, boolean retained) {
        this(name, retained, 7);
    }

    ScriptedRequest(String name, boolean retained, int fd) {
        this.name = name;
        this.retained = retained;
        this.fd = fd;
    }

    @Override
    public Kind kind() {
        return Kind.RING;
    }

    @Override
    public boolean retained() {
        return retained;
    }

    @Override
    public void prepare(Submission submission, Ring ring) {
        submissions++;
        submission.opcode = retained ? Opcode.WRITE : Opcode.RECV;
        submission.fd = fd;
        submission.length = 1;
    }

    @Override
    public boolean complete(int result) {
        if (result == -Errno.EAGAIN || result == -Errno.EINTR) {
            return false;
        }
        if (result < 0) {
            return fail(new dev.lockstep.StorageIoException(name + " failed: " + Errno.describe(-result)));
        }
        return succeed(result);
    }

    @Override
    public void closedEarly() {
        closedEarly = true;
    }

    @Override
    public void release(Ring ring) {
        Worker worker = Worker.current();
        if (worker != null && worker.isBorrowed()) {
            releasedInsideBorrow = true;
        }
        releases.incrementAndGet();
        RELEASED.incrementAndGet();
    }

    @Override
    public String describe() {
        return name;
    }
}
