package dev.lockstep.demo.resp;

/**
 * A peer sent bytes that are not a RESP request this server takes: a bad type byte, a length that is not a decimal
 * number or is past a bound, a missing {@code \r\n}. The message names the bad value; the server answers it with
 * an error and closes the connection, since after a framing error nothing later on it can be trusted.
 */
final class RespProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception naming what was wrong.
     *
     * @param message what was wrong, naming the value
     */
    public RespProtocolException(String message) {
        super(message);
    }
}
