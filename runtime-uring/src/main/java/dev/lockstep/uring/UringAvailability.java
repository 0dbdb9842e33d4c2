package dev.lockstep.uring;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Whether the kernel gives this thread io_uring, and if not, why: the check {@link UringRunner.Builder#build()}
 * makes before anything else, so that a machine without io_uring fails at once with a message naming the cause
 * and the fix instead of with a bare {@code EPERM} from a worker thread.
 *
 * <p>The check asks for a one-entry ring with no flags ({@code io_uring_setup}) and closes it at once. A refusal
 * is explained from what Linux exposes about it: {@code /proc/sys/kernel/io_uring_disabled} and
 * {@code io_uring_group}, the calling thread's {@code Seccomp:}, {@code CapEff:} and {@code Groups:} in
 * {@code /proc/thread-self/status}, and {@code RLIMIT_MEMLOCK} from {@code /proc/self/limits}. Any thread.
 */
final class UringAvailability {
    private static final int PARAMS_BYTES = 120;
    private static final int CAP_SYS_ADMIN = 21;
    private static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");
    private static final Path GROUP_SYSCTL = Path.of("/proc/sys/kernel/io_uring_group");
    private static final Path THREAD_STATUS = Path.of("/proc/thread-self/status");
    private static final Path LIMITS = Path.of("/proc/self/limits");

    private UringAvailability() {
    }

    /**
     * Fails unless the kernel gives the calling thread an io_uring ring.
     *
     * @throws UringUnavailableException naming the cause and the fix when it refuses with {@code EPERM},
     *     {@code ENOSYS} or {@code ENOMEM}
     * @throws KernelException naming {@code io_uring_setup} for any other refusal
     */
    static void require() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = Libc.newCallState(arena);
            MemorySegment params = arena.allocate(PARAMS_BYTES, 8);
            long result;
            do {
                result = Libc.syscall(callState, Libc.SYS_IO_URING_SETUP, 1, params.address(), 0, 0, 0, 0);
            } while (result == -Libc.EINTR);
            if (result >= 0) {
                int fd = (int) result;
                Libc.invoke(callState, state -> (int) Libc.CLOSE.invokeExact(state, fd));
                return;
            }
            int errno = (int) -result;
            UringUnavailableException unavailable = explain(errno, "io_uring_setup(1 entry)");
            if (unavailable != null) {
                throw unavailable;
            }
            throw new KernelException(errno, "io_uring_setup", "1 entry, no flags");
        }
    }

    /**
     * Explains a refusal of {@code io_uring_setup}.
     *
     * @param errno what the kernel answered
     * @param call the call as the message should name it
     * @return the exception to throw, or null when {@code errno} is not one that means io_uring is unavailable
     */
    static UringUnavailableException explain(int errno, String call) {
        String answered = call + " failed with " + Errno.describe(errno) + ": ";
        if (errno == Errno.EPERM || errno == Errno.ENOSYS) {
            int disabled = readInt(DISABLED_SYSCTL, 0);
            String seccomp = statusField("Seccomp");
            boolean filtered = seccomp != null && !seccomp.equals("0");
            if (errno == Errno.EPERM && disabled == 2) {
                return new UringUnavailableException(UringUnavailableException.Reason.DISABLED_BY_SYSCTL, errno,
                        answered + "io_uring is disabled on this machine: sysctl kernel.io_uring_disabled is 2, which "
                                + "refuses it to every process. Fix: sysctl -w kernel.io_uring_disabled=0 as root "
                                + "(and in /etc/sysctl.d/ to keep it), or run on a runtime that does not need io_uring.");
            }
            if (errno == Errno.EPERM && disabled == 1 && !privileged()) {
                int group = readInt(GROUP_SYSCTL, -1);
                return new UringUnavailableException(UringUnavailableException.Reason.RESTRICTED_BY_SYSCTL, errno,
                        answered + "io_uring is restricted on this machine: sysctl kernel.io_uring_disabled is 1, "
                                + "which allows it only to processes with CAP_SYS_ADMIN or in the group "
                                + "kernel.io_uring_group (" + (group < 0 ? "-1: no group" : "gid " + group)
                                + "), and this process has neither. Fix: run it in that group (as root: sysctl -w "
                                + "kernel.io_uring_group=GID, then add the user to group GID), or sysctl -w "
                                + "kernel.io_uring_disabled=0.");
            }
            if (filtered) {
                return new UringUnavailableException(UringUnavailableException.Reason.BLOCKED_BY_SECCOMP, errno,
                        answered + "a seccomp filter on this process blocks io_uring (Seccomp: " + seccomp
                                + " in /proc/thread-self/status); Docker's default profile and many container "
                                + "runtimes block io_uring_setup, io_uring_enter and io_uring_register. Fix: run the "
                                + "container with a seccomp profile that allows those three system calls (docker run "
                                + "--security-opt seccomp=PROFILE.json; in Kubernetes, securityContext.seccompProfile "
                                + "of type Localhost).");
            }
            if (errno == Errno.ENOSYS) {
                return new UringUnavailableException(UringUnavailableException.Reason.NOT_IN_KERNEL, errno,
                        answered + "this kernel (" + System.getProperty("os.version") + ") has no io_uring: it was "
                                + "built without CONFIG_IO_URING or is older than 5.1. Fix: a Linux 5.11 or newer "
                                + "kernel with io_uring.");
            }
            return new UringUnavailableException(UringUnavailableException.Reason.NOT_PERMITTED, errno,
                    answered + "io_uring is not permitted to this process, though kernel.io_uring_disabled is "
                            + disabled + " and no seccomp filter is set: a security module may refuse it (SELinux "
                            + "has io_uring permissions). Fix: allow io_uring for this process in that policy.");
        }
        if (errno == Errno.ENOMEM) {
            return new UringUnavailableException(UringUnavailableException.Reason.OUT_OF_LOCKED_MEMORY, errno,
                    answered + "the kernel could not allocate the ring. Kernels before 5.12 charge ring memory to "
                            + "RLIMIT_MEMLOCK, here " + lockedMemoryLimit() + " (this kernel: "
                            + System.getProperty("os.version") + "); later ones to the memory cgroup. Fix: raise the "
                            + "locked-memory limit (ulimit -l unlimited; systemd LimitMEMLOCK=infinity; docker run "
                            + "--ulimit memlock=-1), use fewer or smaller rings, or run on Linux 5.12 or newer.");
        }
        return null;
    }

    /** CAP_SYS_ADMIN in the calling thread's effective set, or membership in {@code kernel.io_uring_group}. */
    private static boolean privileged() {
        String effective = statusField("CapEff");
        if (effective != null && (Long.parseUnsignedLong(effective, 16) & (1L << CAP_SYS_ADMIN)) != 0) {
            return true;
        }
        int group = readInt(GROUP_SYSCTL, -1);
        String groups = statusField("Groups");
        return group >= 0 && groups != null && Arrays.asList(groups.split("\\s+")).contains(Integer.toString(group));
    }

    private static String lockedMemoryLimit() {
        for (String line : readLines(LIMITS)) {
            if (line.startsWith("Max locked memory")) {
                String[] fields = line.substring("Max locked memory".length()).trim().split("\\s+");
                return fields[0].equals("unlimited") ? "unlimited" : fields[0] + " bytes";
            }
        }
        return "unknown";
    }

    private static String statusField(String name) {
        for (String line : readLines(THREAD_STATUS)) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    private static int readInt(Path path, int missing) {
        List<String> lines = readLines(path);
        try {
            return lines.isEmpty() ? missing : Integer.parseInt(lines.get(0).trim());
        } catch (NumberFormatException unexpected) {
            return missing;
        }
    }

    /** The lines of a /proc file, none when it is missing (an older kernel, no /proc). */
    private static List<String> readLines(Path path) {
        try {
            return Files.readAllLines(path, StandardCharsets.US_ASCII);
        } catch (IOException missing) {
            return List.of();
        }
    }
}
