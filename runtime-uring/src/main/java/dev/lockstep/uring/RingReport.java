package dev.lockstep.uring;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * What a ring's set-up chose, said once: the process's first ring logs one line naming the kernel, the ring's
 * flags and features and every fallback taken ({@link System.Logger} {@code dev.lockstep.uring}; {@code DEBUG}, or
 * {@code INFO} when a fallback was taken), and every ring's set-up and
 * teardown is a JFR event ({@code lockstep.RingSetup}, {@code lockstep.RingTeardown}), as is a completion queue
 * that overflowed into the kernel's backlog ({@code lockstep.CompletionOverflow}). All on the ring's owner thread.
 */
final class RingReport {
    private static final System.Logger LOG = System.getLogger("dev.lockstep.uring");
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    /** {@code IORING_FEAT_*} bits and their names, lowest bit first. */
    private static final String[] FEATURES = {"SINGLE_MMAP", "NODROP", "SUBMIT_STABLE", "RW_CUR_POS",
        "CUR_PERSONALITY", "FAST_POLL", "POLL_32BITS", "SQPOLL_NONFIXED", "EXT_ARG", "NATIVE_WORKERS", "RSRC_TAGS",
        "CQE_SKIP", "LINKED_FILE", "REG_REG_RING", "RECVSEND_BUNDLE", "MIN_TIMEOUT", "RW_ATTR", "NO_IOWAIT"};

    private RingReport() {
    }

    /**
     * A ring was set up: the event, and the process's one log line if this is its first ring.
     *
     * @param ring the ring, open
     */
    static void opened(UringRing ring) {
        String fallbacks = describeFallbacks(ring);
        if (LOGGED.compareAndSet(false, true)) {
            LOG.log(startupLevel(fallbacks), startupLine(ring, fallbacks));
        }
        RingSetupEvent event = new RingSetupEvent();
        if (event.shouldCommit()) {
            event.ringFd = ring.ringFd();
            event.entries = ring.entries();
            event.kernel = kernel();
            event.flags = ring.setupFlags();
            event.features = features(ring.features());
            event.fallbacks = fallbacks;
            event.commit();
        }
    }

    /**
     * The start-up line's level: {@code DEBUG} when the rings are set up as preferred, so a program's output has
     * no line it did not ask for ({@code dev.lockstep.uring} at {@code DEBUG}, JUL's {@code FINE}, shows it);
     * {@code INFO} when a fallback was taken, which an operator should see.
     *
     * @param fallbacks {@link #describeFallbacks}
     * @return the level
     */
    static System.Logger.Level startupLevel(String fallbacks) {
        return fallbacks.equals("none") ? System.Logger.Level.DEBUG : System.Logger.Level.INFO;
    }

    /**
     * The process's one start-up line: the kernel, the ring's flags and features, and the fallbacks taken.
     *
     * @param ring an open ring
     * @param fallbacks {@link #fallbacks} joined, or {@code none}
     * @return the line
     */
    static String startupLine(UringRing ring, String fallbacks) {
        return startupLine(kernel(), ring.setupFlags(), ring.features(), fallbacks);
    }

    /**
     * The start-up line from its parts.
     *
     * @param kernel the kernel's release
     * @param setupFlags the ring's set-up flags, named
     * @param features the ring's {@code IORING_FEAT_*} bits
     * @param fallbacks {@link #fallbacks} joined, or {@code none}
     * @return the line
     */
    static String startupLine(String kernel, String setupFlags, int features, String fallbacks) {
        return "runtime-uring on Linux " + kernel + ": io_uring rings with flags " + setupFlags
                + ", features " + features(features) + "; fallbacks: " + fallbacks;
    }

    /** A ring is being closed. */
    static void closing(UringRing ring) {
        RingTeardownEvent event = new RingTeardownEvent();
        if (event.shouldCommit()) {
            event.ringFd = ring.ringFd();
            event.entries = ring.entries();
            event.completionOverflows = ring.completionOverflows();
            event.commit();
        }
    }

    /** The ring found its completion queue overflowed and is draining the kernel's backlog. */
    static void overflowed(UringRing ring) {
        CompletionOverflowEvent event = new CompletionOverflowEvent();
        if (event.shouldCommit()) {
            event.ringFd = ring.ringFd();
            event.entries = ring.entries();
            event.commit();
        }
    }

    /** {@link #fallbacks} joined with commas, or {@code none}. */
    static String describeFallbacks(UringRing ring) {
        List<String> taken = fallbacks(ring);
        return taken.isEmpty() ? "none" : String.join(", ", taken);
    }

    /** What this process's rings do differently from the preferred set-up, each named. */
    static List<String> fallbacks(UringRing ring) {
        List<String> taken = new ArrayList<>();
        int left = UringSetup.PREFERRED_SETUP & ~ring.setupFlagBits();
        if (left != 0) {
            taken.add("setup flags " + UringSetup.describeSetupFlags(UringSetup.PREFERRED_SETUP) + " refused, using "
                    + ring.setupFlags() + " (without " + UringSetup.describeSetupFlags(left) + ")");
        }
        if (!UringSetup.usesFtruncateOpcode()) {
            taken.add("ftruncate offloaded (no IORING_OP_FTRUNCATE, Linux 6.9+)");
        }
        if (!UringSetup.usesFallocateOpcode()) {
            taken.add("fallocate offloaded (no IORING_OP_FALLOCATE, Linux 5.6+)");
        }
        if (!UringSetup.usesPathOpcodes()) {
            taken.add("path calls offloaded (no IORING_OP_OPENAT/STATX/UNLINKAT/MKDIRAT/RENAMEAT, Linux 5.15+)");
        }
        if (ring.receiveSelection().refused()) {
            taken.add("receives hold a buffer each while they wait (no IORING_REGISTER_PBUF_RING, Linux 5.19+)");
        }
        if (!ring.ringFdRegistered()) {
            taken.add("ring fd not registered (IORING_REGISTER_RING_FDS, Linux 5.18+)");
        }
        return taken;
    }

    /** The kernel's release, as {@code uname -r} prints it. */
    static String kernel() {
        return System.getProperty("os.version", "unknown");
    }

    /** Names {@code IORING_FEAT_*} bits, e.g. {@code NODROP|EXT_ARG}; unknown bits as a hexadecimal rest. */
    static String features(int bits) {
        StringJoiner names = new StringJoiner("|");
        int rest = bits;
        for (int bit = 0; bit < FEATURES.length; bit++) {
            if ((bits & (1 << bit)) != 0) {
                names.add(FEATURES[bit]);
                rest &= ~(1 << bit);
            }
        }
        if (rest != 0) {
            names.add("0x" + Integer.toHexString(rest));
        }
        return names.length() == 0 ? "none" : names.toString();
    }

    @Name("lockstep.RingSetup")
    @Label("Lockstep Ring Setup")
    @Category({"Lockstep", "Ring"})
    @Description("An io_uring ring was set up for a worker, with the flags, features and fallbacks chosen")
    @StackTrace(false)
    static final class RingSetupEvent extends jdk.jfr.Event {
        @Label("Ring fd")
        int ringFd;
        @Label("Entries")
        int entries;
        @Label("Kernel")
        String kernel;
        @Label("Setup Flags")
        String flags;
        @Label("Features")
        String features;
        @Label("Fallbacks")
        @Description("What the ring does differently from the preferred set-up, or none")
        String fallbacks;
    }

    @Name("lockstep.RingTeardown")
    @Label("Lockstep Ring Teardown")
    @Category({"Lockstep", "Ring"})
    @Description("An io_uring ring was closed when its worker retired")
    @StackTrace(false)
    static final class RingTeardownEvent extends jdk.jfr.Event {
        @Label("Ring fd")
        int ringFd;
        @Label("Entries")
        int entries;
        @Label("Completion Overflows")
        long completionOverflows;
    }

    @Name("lockstep.CompletionOverflow")
    @Label("Lockstep Completion Queue Overflow")
    @Category({"Lockstep", "Ring"})
    @Description("The completion queue overflowed into the kernel's backlog, which the ring then drained")
    @StackTrace(false)
    static final class CompletionOverflowEvent extends jdk.jfr.Event {
        @Label("Ring fd")
        int ringFd;
        @Label("Entries")
        int entries;
    }
}
