package dev.lockstep.demo.kv;

/**
 * The store cannot serve the request: it is not open yet, it is being reopened, or a write or sync failed and
 * poisoned it. A write that fails with this exception may or may not have reached the log.
 */
public final class StoreUnavailableException extends RuntimeException {
    /**
     * @param message what is unavailable and why
     * @param cause the failure that poisoned the store, or null
     */
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
