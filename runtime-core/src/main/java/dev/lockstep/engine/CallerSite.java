package dev.lockstep.engine;

import java.util.Optional;

/**
 * The application's source line on the calling stack: the first frame outside Lockstep's engine and kernel SPI
 * and the JDK. Recorded for a blocking call when the kernel asks ({@link dev.lockstep.kernel.Kernel#recordsCallers()}),
 * since the call itself runs where no application frame is on the stack.
 */
final class CallerSite {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final int MAX_FRAMES = 40;

    private CallerSite() {
    }

    /**
     * Describes the caller.
     *
     * @return the first application frame as text, or null if none is within the first frames
     */
    static String describe() {
        Optional<StackWalker.StackFrame> frame = WALKER.walk(stack -> stack.limit(MAX_FRAMES)
                .filter(f -> isApplication(f.getClassName())).findFirst());
        return frame.map(f -> f.toStackTraceElement().toString()).orElse(null);
    }

    private static boolean isApplication(String type) {
        return !type.startsWith("dev.lockstep.engine.") && !type.startsWith("dev.lockstep.kernel.")
                && !type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.");
    }
}
