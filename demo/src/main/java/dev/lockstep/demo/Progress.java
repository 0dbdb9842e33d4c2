package dev.lockstep.demo;

import java.io.PrintStream;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * A progress bar on a plain thread (never a fiber): redrawn in place ten times a second on a terminal, and
 * printed as a line at each quarter otherwise, so logs stay readable.
 */
final class Progress implements AutoCloseable {
    private static final int WIDTH = 30;

    private final PrintStream out;
    private final DoubleSupplier fraction;
    private final Supplier<String> status;
    private final boolean terminal;
    private final Thread thread;
    private volatile boolean done;
    private int quartersPrinted;

    /**
     * Starts drawing.
     *
     * @param out where to draw
     * @param fraction progress in {@code [0, 1]}
     * @param status the text after the bar
     */
    Progress(PrintStream out, DoubleSupplier fraction, Supplier<String> status) {
        this.out = out;
        this.fraction = fraction;
        this.status = status;
        this.terminal = System.console() != null && System.console().isTerminal();
        this.thread = Thread.ofPlatform().daemon().name("lockstep-progress").start(this::loop);
    }

    private void loop() {
        while (!done) {
            draw(false);
            try {
                Thread.sleep(100);
            } catch (InterruptedException stop) {
                return;
            }
        }
    }

    private synchronized void draw(boolean last) {
        double f = Math.max(0, Math.min(1, fraction.getAsDouble()));
        if (terminal) {
            out.print("\r  " + bar(f) + " " + status.get() + "\u001b[K");
            if (last) {
                out.println();
            }
            out.flush();
            return;
        }
        int quarter = (int) Math.floor(f * 4);
        if (last || quarter > quartersPrinted) {
            quartersPrinted = Math.max(quarter, quartersPrinted);
            if (!last || quartersPrinted < 5) {
                out.println("  " + bar(f) + " " + status.get());
            }
            if (last) {
                quartersPrinted = 5;
            }
        }
    }

    static String bar(double f) {
        int filled = (int) Math.round(f * WIDTH);
        return "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "]";
    }

    /** Draws the final state and stops. */
    @Override
    public void close() {
        done = true;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!terminal && quartersPrinted >= 4) {
            return;
        }
        draw(true);
    }
}
