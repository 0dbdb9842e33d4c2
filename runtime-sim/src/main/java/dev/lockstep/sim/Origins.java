package dev.lockstep.sim;

import java.util.List;

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
    private static final String LOOP = Simulation.class.getName();

    private Origins() {
    }

    /**
     * The first frame of application code on the calling stack; failing that (a call the engine makes in a
     * worker's service turn, where no application frame is on the stack), the first engine frame.
     */
    static String caller() {
        // Frames below the simulator's loop are whoever started the runner, not whoever asked for the resource.
        List<StackWalker.StackFrame> frames = WALKER.walk(stack -> stack.limit(MAX_FRAMES)
                .takeWhile(f -> !f.getClassName().equals(LOOP)).filter(f -> !isSimulator(f.getClassName())).toList());
        for (StackWalker.StackFrame frame : frames) {
            if (isApplication(frame.getClassName())) {
                return frame.toStackTraceElement().toString();
            }
        }
        return frames.isEmpty() ? "an unknown caller"
                : frames.getFirst().toStackTraceElement() + " (in a worker's service turn)";
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
