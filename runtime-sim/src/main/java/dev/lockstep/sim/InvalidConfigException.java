package dev.lockstep.sim;

/**
 * A simulator configuration value is invalid: thrown when the configuration is built, before anything runs. The
 * message names the field and the value; {@link #field()} names the field for code.
 *
 * <p>It is an {@link IllegalArgumentException}, so callers that only care that a value was refused may catch
 * that.
 */
public final class InvalidConfigException extends IllegalArgumentException {
    private final String field;

    /**
     * @param field the field, qualified by its owner, e.g. {@code StorageFaults.writeRate} or
     *              {@code SimConfig.workers}
     * @param message the whole message, naming the field and its value
     */
    public InvalidConfigException(String field, String message) {
        super(message);
        this.field = field;
    }

    /**
     * The field that was refused, qualified by its owner: {@code SimConfig.workers},
     * {@code StorageFaults.writeRate}, {@code NetworkConfig.breakRate} ...
     *
     * @return the field
     */
    public String field() {
        return field;
    }
}
