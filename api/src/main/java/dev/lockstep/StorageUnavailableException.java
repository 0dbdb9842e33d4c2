package dev.lockstep;

/**
 * The runner has no storage: it was built without a storage directory (on runtime-uring,
 * {@code UringRunner.builder().storage(directory)} gives it one; the simulator always has its own disk). Thrown at
 * the call by {@link Storage#open}, {@link Storage#remove} and {@link Storage#scan}.
 */
public final class StorageUnavailableException extends StorageException {
    /**
     * @param message what was refused and why
     */
    public StorageUnavailableException(String message) {
        super(message, null);
    }
}
