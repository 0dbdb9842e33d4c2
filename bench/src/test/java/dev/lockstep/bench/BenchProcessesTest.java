package dev.lockstep.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import org.junit.jupiter.api.Test;

class BenchProcessesTest {
    /**
     * A process whose first wait is interrupted: the second wait must run without the interrupt flag (else it
     * throws at once, over and over), and the flag is restored once the exit status is known.
     */
    @Test
    void anInterruptedWaitWaitsAgainWithoutSpinningAndKeepsTheInterrupt() {
        InterruptedOnce process = new InterruptedOnce();
        try {
            assertEquals(7, BenchProcesses.waitFor(process));
            assertEquals(2, process.waits, "one interrupted wait, then one that returns the status");
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is restored for the caller");
        } finally {
            Thread.interrupted();
        }
    }

    /** Its first wait is interrupted; later waits behave as Process.waitFor does: throw if the flag is set. */
    private static final class InterruptedOnce extends Process {
        /** Waits at which the caller gives up counting: far more than a correct caller makes. */
        private static final int SPIN = 1_000;
        int waits;

        @Override
        public int waitFor() throws InterruptedException {
            waits++;
            if (waits == 1 || (Thread.currentThread().isInterrupted() && waits < SPIN)) {
                Thread.interrupted();
                throw new InterruptedException();
            }
            return 7;
        }

        @Override
        public OutputStream getOutputStream() {
            return OutputStream.nullOutputStream();
        }

        @Override
        public InputStream getInputStream() {
            return InputStream.nullInputStream();
        }

        @Override
        public InputStream getErrorStream() {
            return InputStream.nullInputStream();
        }

        @Override
        public int exitValue() {
            return 7;
        }

        @Override
        public void destroy() {
        }
    }
}
