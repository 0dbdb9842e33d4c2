package dev.lockstep.engine.worker;

import dev.lockstep.engine.io.BlobReadRequest;
import dev.lockstep.engine.io.BlobWriteRequest;
import dev.lockstep.engine.io.EngineNetwork;

/**
 * A worker's retired requests of the kinds made per operation (blob reads, blob writes, sends), kept for the next
 * ones of that worker to reuse. Threads: the worker's own thread only, the fiber registering a request and the
 * request's release on it ({@link Recycler} says why no lock is needed); a request is given back only once
 * released and referenced by nothing else.
 */
public final class RetiredRequests {
    private final Recycler<BlobReadRequest> blobReads = new Recycler<>();
    private final Recycler<BlobWriteRequest> blobWrites = new Recycler<>();
    private final Recycler<EngineNetwork.SendRequest> sends = new Recycler<>();

    RetiredRequests() {
    }

    /**
     * A retired blob read to reuse, or null (the caller makes one).
     *
     * @return the request, or null
     */
    public BlobReadRequest blobRead() {
        return blobReads.take();
    }

    /**
     * Keeps a released blob read for reuse.
     *
     * @param request the released request, referenced by nothing else
     */
    public void give(BlobReadRequest request) {
        blobReads.give(request);
    }

    /**
     * A retired blob write to reuse, or null.
     *
     * @return the request, or null
     */
    public BlobWriteRequest blobWrite() {
        return blobWrites.take();
    }

    /**
     * Keeps a released blob write for reuse.
     *
     * @param request the released request, referenced by nothing else
     */
    public void give(BlobWriteRequest request) {
        blobWrites.give(request);
    }

    /**
     * A retired send to reuse, or null.
     *
     * @return the request, or null
     */
    public EngineNetwork.SendRequest send() {
        return sends.take();
    }

    /**
     * Keeps a released send for reuse.
     *
     * @param request the released request, referenced by nothing else
     */
    public void give(EngineNetwork.SendRequest request) {
        sends.give(request);
    }
}
