package dev.lockstep.sim.os;

/**
 * Where the simulated kernel was asked to create a resource: the source line a leak report names.
 *
 * <p>One walk of at most {@value #MAX_FRAMES} frames per fd created (fds are rare; ring buffers, made for every
 * request, record no stack). Stack frames never reach the generator or the audit chain, so they cannot change a
 * run.
 */
final class Origins {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final int MAX_FRAMES = 40;
    /** The simulator's run loop (dev.lockstep.sim.Simulation, package-private there): the frames below it started the runner. */
    static final String LOOP = "dev.lockstep.sim.Simulation";

    private Origins() {
    }

    /**
     * The first frame of application code on the calling stack; failing that (a call the engine makes in a
     * worker's service turn, where no application frame is on the stack), the first engine frame.
     */
    static String caller() {
        // Frames below the simulator's loop are whoever started the runner, not whoever asked for the resource. The
        // walk stops at the first application frame: the stack is taken from the JVM only as far as it is read.
        return WALKER.walk(stack -> {
            StackWalker.StackFrame firstOutside = null;
            for (java.util.Iterator<StackWalker.StackFrame> frames = stack.limit(MAX_FRAMES).iterator();
                    frames.hasNext(); ) {
                StackWalker.StackFrame frame = frames.next();
                String type = frame.getClassName();
                if (type.equals(LOOP)) {
                    break;
                }
                if (isSimulator(type)) {
                    continue;
                }
                if (isApplication(type)) {
                    return frame.toStackTraceElement().toString();
                }
                if (firstOutside == null) {
                    firstOutside = frame;
                }
            }
            return firstOutside == null ? "an unknown caller"
                    : firstOutside.toStackTraceElement() + " (in a worker's service turn)";
        });
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
