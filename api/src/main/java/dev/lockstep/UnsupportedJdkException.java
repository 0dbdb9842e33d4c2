package dev.lockstep;

/**
 * This JDK lacks a member of its internals that Lockstep needs (the virtual-thread scheduler hook, a virtual
 * thread's state): a JDK that renamed or removed it. A runner's start throws it, on either runtime, before any task
 * runs. No JVM flag helps; a JDK Lockstep supports, or a Lockstep release that supports this JDK, does.
 */
public final class UnsupportedJdkException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The member, as {@code java.lang.VirtualThread.state}. */
    private final String member;
    /** The JDK's {@link Runtime#version()}. */
    private final String jdkVersion;

    /**
     * @param member the member this JDK does not have
     * @param jdkVersion this JDK's version
     * @param purpose what Lockstep uses the member for, as a clause: "Lockstep runs fibers on its workers"
     * @param cause the reflective failure
     */
    public UnsupportedJdkException(String member, String jdkVersion, String purpose, Throwable cause) {
        super("this JDK (Java " + jdkVersion + ", " + System.getProperty("java.vm.vendor") + ") has no " + member
                + ", through which " + purpose + ": the JDK changed its internals, and no JVM flag brings the"
                + " member back; run Lockstep on JDK 25, or a Lockstep release that"
                + " supports this JDK (" + cause + ")",
                cause);
        this.member = member;
        this.jdkVersion = jdkVersion;
    }

    /**
     * The member this JDK lacks.
     *
     * @return as {@code java.lang.VirtualThread.state}
     */
    public String member() {
        return member;
    }

    /**
     * The version of the JDK that lacks it.
     *
     * @return {@link Runtime#version()} as text
     */
    public String jdkVersion() {
        return jdkVersion;
    }
}
