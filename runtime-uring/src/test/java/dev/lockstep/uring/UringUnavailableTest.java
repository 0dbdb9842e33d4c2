package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Each way the kernel refuses io_uring that this machine can produce, and what {@link UringRunner} says.
 *
 * <p>Seccomp filters and capabilities belong to one thread in Linux, so those cases restrict a fresh platform
 * thread of their own and leave the rest of the JVM (and the machine) alone. {@code kernel.io_uring_disabled}
 * belongs to the whole machine: the tests that set it hold it for the one check {@code build()} makes and restore
 * it in {@code finally}. No other test runs at the same time: surefire runs this module's classes one after another
 * in one JVM, and JUnit runs their methods sequentially (no parallel execution is configured). They need root and a
 * writable sysctl, and are skipped without.
 *
 * <p>Not produced here: {@code ENOSYS} from a kernel without io_uring (this one has it) and {@code ENOMEM} from
 * {@code RLIMIT_MEMLOCK} (kernels since 5.12 do not charge rings to it); the seccomp filter stands in for the
 * kernel's answer in the second case, so the message a user of an old kernel gets is shown.
 */
class UringUnavailableTest {
    private static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");
    private static final boolean AARCH64 = Libc.AARCH64;
    private static final long SYS_PRCTL = AARCH64 ? 167 : 157;
    private static final long SYS_SECCOMP = AARCH64 ? 277 : 317;
    private static final long SYS_CAPGET = AARCH64 ? 90 : 125;
    private static final long SYS_CAPSET = AARCH64 ? 91 : 126;
    private static final int PR_SET_NO_NEW_PRIVS = 38;
    private static final int SECCOMP_SET_MODE_FILTER = 1;
    private static final int SECCOMP_RET_ERRNO = 0x0005_0000;
    private static final int SECCOMP_RET_ALLOW = 0x7fff_0000;
    private static final int LINUX_CAPABILITY_VERSION_3 = 0x2008_0522;
    private static final int CAP_SYS_ADMIN = 21;

    @Test
    void disabledForEveryProcessFailsTheBuildNamingTheSysctlAndTheFix() throws Exception {
        UringUnavailableException refused = withDisabledSysctl(2, () -> build());
        assertEquals(UringUnavailableException.Reason.DISABLED_BY_SYSCTL, refused.reason());
        assertEquals(Errno.EPERM, refused.errno());
        assertMentions(refused, "kernel.io_uring_disabled is 2", "sysctl -w kernel.io_uring_disabled=0", "EPERM");
        build().close();
    }

    @Test
    void restrictedToPrivilegedProcessesFailsTheBuildOfAThreadWithoutCapSysAdmin() throws Exception {
        CountDownLatch restricted = new CountDownLatch(1);
        CountDownLatch sysctlSet = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().start(() -> {
            try {
                dropEffectiveCapability(CAP_SYS_ADMIN);
                restricted.countDown();
                sysctlSet.await();
                outcome.set(assertThrows(UringUnavailableException.class, UringUnavailableTest::build));
            } catch (Throwable failure) {
                outcome.set(failure);
            } finally {
                restricted.countDown();
            }
        });
        restricted.await();
        // Root processes keep io_uring at 1 (they have CAP_SYS_ADMIN), so only the restricted thread is refused.
        withDisabledSysctl(1, () -> {
            sysctlSet.countDown();
            thread.join();
            return null;
        });
        UringUnavailableException refused = assertInstanceOf(UringUnavailableException.class, outcome.get());
        assertEquals(UringUnavailableException.Reason.RESTRICTED_BY_SYSCTL, refused.reason());
        assertMentions(refused, "kernel.io_uring_disabled is 1", "CAP_SYS_ADMIN", "kernel.io_uring_group");
    }

    @Test
    void aSeccompFilterAnsweringEpermAsDockersDefaultDoesFailsTheBuildNamingSeccomp() throws Exception {
        UringUnavailableException refused = onThreadWithSeccompErrno(Errno.EPERM, UringUnavailableTest::build);
        assertEquals(UringUnavailableException.Reason.BLOCKED_BY_SECCOMP, refused.reason());
        assertMentions(refused, "seccomp", "EPERM", "io_uring_setup, io_uring_enter and io_uring_register",
                "--security-opt seccomp=");
    }

    @Test
    void aSeccompFilterAnsweringEnosysAsOlderProfilesDoFailsTheBuildNamingSeccomp() throws Exception {
        UringUnavailableException refused = onThreadWithSeccompErrno(Errno.ENOSYS, UringUnavailableTest::build);
        assertEquals(UringUnavailableException.Reason.BLOCKED_BY_SECCOMP, refused.reason());
        assertEquals(Errno.ENOSYS, refused.errno());
        assertMentions(refused, "seccomp", "ENOSYS");
    }

    @Test
    void enomemAsOldKernelsAnswerUnderRlimitMemlockNamesTheLimitAndTheFix() throws Exception {
        UringUnavailableException refused = onThreadWithSeccompErrno(Errno.ENOMEM, UringUnavailableTest::build);
        assertEquals(UringUnavailableException.Reason.OUT_OF_LOCKED_MEMORY, refused.reason());
        assertMentions(refused, "RLIMIT_MEMLOCK", "ulimit -l", "ENOMEM");
    }

    @Test
    void aRingRefusedAfterTheBuildIsExplainedTheSameWay() throws Exception {
        UringUnavailableException refused = onThreadWithSeccompErrno(Errno.EPERM, () -> {
            new UringKernel().openRing(8).close();
            return null;
        });
        assertEquals(UringUnavailableException.Reason.BLOCKED_BY_SECCOMP, refused.reason());
        KernelException cause = assertInstanceOf(KernelException.class, refused.getCause());
        assertEquals("io_uring_setup", cause.call());
    }

    /** A runner whose build asks the kernel for a ring; its workers never start, so it holds nothing. */
    private static AutoCloseable build() {
        UringRunner.builder().workers(1).ringEntries(8).build();
        return () -> { };
    }

    @FunctionalInterface
    private interface Action {
        Object run() throws Exception;
    }

    private static void assertMentions(Exception refused, String... parts) {
        for (String part : parts) {
            assertTrue(refused.getMessage().contains(part), () -> "no '" + part + "' in: " + refused.getMessage());
        }
    }

    /**
     * Runs {@code action} with {@code kernel.io_uring_disabled} at {@code value}, restored in {@code finally}; the
     * action must be one call, so that the machine's other processes see the value as briefly as possible.
     */
    private static UringUnavailableException withDisabledSysctl(int value, Action action) throws Exception {
        assumeTrue(Files.isWritable(DISABLED_SYSCTL), "needs root and " + DISABLED_SYSCTL);
        String before = Files.readString(DISABLED_SYSCTL).trim();
        assumeTrue(before.equals("0"), "io_uring is already restricted here: " + before);
        Object result;
        try {
            Files.writeString(DISABLED_SYSCTL, Integer.toString(value));
            try {
                result = action.run();
            } catch (UringUnavailableException refused) {
                return refused;
            }
        } finally {
            restore(before);
        }
        if (value == 1) {
            return null;
        }
        throw new AssertionError("the build succeeded with kernel.io_uring_disabled=" + value + ": " + result);
    }

    private static void restore(String before) throws IOException {
        Files.writeString(DISABLED_SYSCTL, before);
        assertEquals(before, Files.readString(DISABLED_SYSCTL).trim(), "kernel.io_uring_disabled restored");
    }

    /** Runs {@code action} on a new platform thread whose seccomp filter fails {@code io_uring_setup} with errno. */
    private static UringUnavailableException onThreadWithSeccompErrno(int errno, Action action) throws Exception {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().start(() -> {
            try {
                installSeccompErrno(Math.toIntExact(Libc.SYS_IO_URING_SETUP), errno);
                outcome.set(assertThrows(UringUnavailableException.class, action::run));
            } catch (Throwable failure) {
                outcome.set(failure);
            }
        });
        thread.join();
        return assertInstanceOf(UringUnavailableException.class, outcome.get());
    }

    /**
     * A seccomp filter on the calling thread only (no TSYNC): {@code syscall} fails with {@code errno}, every other
     * call is allowed. Needs {@code no_new_privs}, which is per thread too.
     */
    private static void installSeccompErrno(int syscall, int errno) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            Libc.check(Libc.syscall(state, SYS_PRCTL, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0), "prctl", "no_new_privs");
            // Classic BPF: load the syscall number; if it is ours return ERRNO, else ALLOW.
            int[][] program = {
                {0x20, 0, 0, 0},                              // ld  [0]   (seccomp_data.nr)
                {0x15, 0, 1, syscall},                        // jeq #syscall, next, skip one
                {0x06, 0, 0, SECCOMP_RET_ERRNO | errno},      // ret ERRNO(errno)
                {0x06, 0, 0, SECCOMP_RET_ALLOW},              // ret ALLOW
            };
            MemorySegment filter = arena.allocate(8L * program.length, 8);
            for (int index = 0; index < program.length; index++) {
                long at = 8L * index;
                filter.set(JAVA_SHORT, at, (short) program[index][0]);
                filter.set(JAVA_BYTE, at + 2, (byte) program[index][1]);
                filter.set(JAVA_BYTE, at + 3, (byte) program[index][2]);
                filter.set(JAVA_INT, at + 4, program[index][3]);
            }
            MemorySegment fprog = arena.allocate(16, 8);
            fprog.set(JAVA_SHORT, 0, (short) program.length);
            fprog.set(JAVA_LONG, 8, filter.address());
            Libc.check(Libc.syscall(state, SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, 0, fprog.address(), 0, 0, 0),
                    "seccomp", "SET_MODE_FILTER");
        }
    }

    /** Removes a capability from the calling thread's effective set ({@code capset} acts on one thread). */
    private static void dropEffectiveCapability(int capability) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            MemorySegment header = arena.allocate(8, 8);
            header.set(JAVA_INT, 0, LINUX_CAPABILITY_VERSION_3);
            header.set(JAVA_INT, 4, 0);
            // Two {effective, permitted, inheritable} words: capabilities 0-31, then 32-63.
            MemorySegment data = arena.allocate(24, 8);
            Libc.check(Libc.syscall(state, SYS_CAPGET, header.address(), data.address(), 0, 0, 0, 0), "capget", "");
            data.set(JAVA_INT, 0, data.get(JAVA_INT, 0) & ~(1 << capability));
            Libc.check(Libc.syscall(state, SYS_CAPSET, header.address(), data.address(), 0, 0, 0, 0), "capset", "");
        }
    }
}
