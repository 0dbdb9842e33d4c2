package dev.lockstep.sim.os;

import dev.lockstep.kernel.CallSite;

/**
 * Where the simulated kernel was asked to create a resource: the source line a leak report names.
 *
 * <p>Every fd created takes the calling stack ({@link #caller()}), but only as the JVM's compact backtrace: the
 * frames become text, and the application's line is picked from them, only when a report reads the origin
 * ({@code toString()}), which few runs ever do: taking frames as objects at every fd (a {@link StackWalker} walk)
 * would make every simulated connection pay for a report few runs read. Ring buffers, made for every request,
 * record no stack.
 * Stack frames never reach the generator or the audit chain, so they cannot change a run.
 */
final class Origins {
    private static final int MAX_FRAMES = 40;
    /** The simulator's run loop (dev.lockstep.sim.Simulation, package-private there): the frames below it started the runner. */
    static final String LOOP = "dev.lockstep.sim.Simulation";

    private Origins() {
    }

    /**
     * The calling stack, whose {@link CallSite#line()} is the first frame of application code on it; failing that (a
     * call the engine makes in a worker's service turn, where no application frame is on the stack), the first
     * engine frame.
     */
    static CallSite caller() {
        return new CallerStack();
    }

    /**
     * What a description's origin says: the call that created it, when, and the line that asked, put into words
     * when read.
     */
    record Opened(String call, long nanos, CallSite from) {
        @Override
        public String toString() {
            return call + " at " + nanos + " ns, from " + from.line();
        }
    }

    /**
     * A stack taken and not thrown: the JVM fills in the backtrace at construction (no message, no suppression)
     * and turns it into {@link StackTraceElement}s only when {@link #line()} asks for them.
     */
    private static final class CallerStack extends Throwable implements CallSite {
        private static final long serialVersionUID = 1L;
        /** The line, once read; the simulator's thread only, as every description is. */
        private transient String line;

        CallerStack() {
            super(null, null, false, true);
        }

        @Override
        public String line() {
            if (line == null) {
                line = firstCaller(getStackTrace());
            }
            return line;
        }

        @Override
        public String toString() {
            return line();
        }
    }

    /** The line {@link #caller()} names, from the stack it took (its first frame is {@code caller} itself). */
    private static String firstCaller(StackTraceElement[] stack) {
        // Frames below the simulator's loop are whoever started the runner, not whoever asked for the resource.
        StackTraceElement firstOutside = null;
        for (int i = 0; i < Math.min(stack.length, MAX_FRAMES); i++) {
            StackTraceElement frame = stack[i];
            String type = frame.getClassName();
            if (type.equals(LOOP)) {
                break;
            }
            if (isSimulator(type)) {
                continue;
            }
            if (isApplication(type)) {
                return frame.toString();
            }
            if (firstOutside == null) {
                firstOutside = frame;
            }
        }
        return firstOutside == null ? "an unknown caller" : firstOutside + " (in a worker's service turn)";
    }

    /** The simulator and the JDK; the simulator's own tests (classes named {@code ...Test}) are application code. */
    private static boolean isSimulator(String type) {
        boolean simulator = type.startsWith("dev.lockstep.sim.") && !type.endsWith("Test") && !type.contains("Test$");
        return simulator || type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.");
    }

    private static boolean isApplication(String type) {
        return !isSimulator(type) && !type.startsWith("dev.lockstep.engine.") && !type.startsWith("dev.lockstep.kernel.");
    }
}
