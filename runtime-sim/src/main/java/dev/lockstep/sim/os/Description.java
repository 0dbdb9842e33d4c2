package dev.lockstep.sim.os;

/**
 * An open description: what an fd of a {@link SimKernel} names (a {@link FileDescription} or a
 * {@link SocketDescription}). Lives while the fd is open or a request uses it; released (the file handle closed,
 * the socket shut) when both are gone, as a real kernel keeps a description alive until its last user lets go.
 * The simulator's thread only.
 */
abstract sealed class Description permits FileDescription, SocketDescription {
    /** The call that created it and the source line that made the call, for leak reports: its {@code toString()}. */
    Object origin = "";
    private boolean inTable = true;
    private int requests;
    private boolean released;

    void retainForRequest() {
        assert !released : "a request retains the released " + describe();
        requests++;
    }

    void releaseForRequest() {
        assert requests > 0 : "a request releases " + describe() + ", which no request holds";
        requests--;
        releaseIfUnused();
    }

    void closeFd() {
        inTable = false;
        releaseIfUnused();
    }

    private void releaseIfUnused() {
        if (!inTable && requests == 0 && !released) {
            released = true;
            release();
        }
    }

    abstract void release();

    abstract String subject();

    abstract String kind();

    /** What a leak report says the description is: its kind, its subject and, for a blob's file, the blob. */
    String describe() {
        return kind() + " " + subject() + blobName();
    }

    /** For a file named as the engine names blobs (the name's bytes in hex), the blob: {@code " = blob 'p/name'"}. */
    String blobName() {
        return "";
    }
}
