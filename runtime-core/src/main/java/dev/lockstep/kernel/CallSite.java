package dev.lockstep.kernel;

/**
 * Where application code asked for a resource: the source line a kernel's diagnostics (the simulator's leak reports)
 * name. A kernel takes one at the call ({@link Kernel#callerSite()}), where the application's frame is on the stack,
 * and the engine carries it with the request ({@link Submission#requestedFrom}, {@link BlockingCall#requestedFrom()})
 * to where the resource is created, in a service turn or on another thread. Diagnostics only: a call site is never
 * part of what a request does.
 *
 * <p>Taking one should be cheap, since every resource-creating call may take one and few are ever read: an
 * implementation may keep the raw stack and put it into words only when {@link #line()} is first called.
 */
public interface CallSite {
    /**
     * The line, for a report.
     *
     * @return a source line such as {@code com.example.Server.serve(Server.java:42)}, or words saying why none is
     *     known; never null. Called by diagnostics only, on the thread that reads the kernel's reports (one at a
     *     time); an implementation computing it lazily need not be thread-safe
     */
    String line();
}
