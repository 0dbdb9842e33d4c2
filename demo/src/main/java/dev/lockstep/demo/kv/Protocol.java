package dev.lockstep.demo.kv;

import dev.lockstep.Stream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The wire protocol: length-prefixed frames over a stream, one request then one response, little-endian.
 *
 * <pre>
 * request  = frameLength u32, op u8, keyLength u16, key, value (rest of the frame; puts only)
 * response = frameLength u32, status u8, payload (rest of the frame: the value of a get, or an error message)
 * </pre>
 * {@code frameLength} counts the bytes after itself and is at most {@value #MAX_FRAME_BYTES}. A peer that
 * sends a malformed frame gets a {@link #BAD_REQUEST} response and is disconnected.
 */
public final class Protocol {
    /** Stores a value. */
    public static final byte PUT = 1;
    /** Reads a value. */
    public static final byte GET = 2;
    /** Removes a key. */
    public static final byte DELETE = 3;

    /** Done; a get's payload is the value. */
    public static final byte OK = 0;
    /** A get of a missing key. */
    public static final byte NOT_FOUND = 1;
    /** The store could not serve the request (unavailable or an I/O failure); a write's fate is unknown. */
    public static final byte ERROR = 2;
    /** The frame was malformed; the server closes the connection. */
    public static final byte BAD_REQUEST = 3;

    /** The largest frame: a maximal key and value and their header. */
    public static final int MAX_FRAME_BYTES = 1 + 2 + Records.MAX_KEY_BYTES + Records.MAX_VALUE_BYTES;

    private Protocol() {
    }

    /**
     * A decoded request.
     *
     * @param op {@link #PUT}, {@link #GET} or {@link #DELETE}
     * @param key the key
     * @param value the value of a put, else empty
     */
    public record Request(byte op, byte[] key, byte[] value) {
    }

    /**
     * A decoded response.
     *
     * @param status {@link #OK}, {@link #NOT_FOUND}, {@link #ERROR} or {@link #BAD_REQUEST}
     * @param payload the value of a get, or the UTF-8 error message
     */
    public record Response(byte status, byte[] payload) {
        /**
         * The payload as text, for errors.
         *
         * @return the message
         */
        public String message() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /**
     * Encodes a request as the chunks of one send.
     *
     * @param op the operation
     * @param key the key
     * @param value the value (puts), else null
     * @return header, key and value chunks
     */
    public static byte[][] request(byte op, byte[] key, byte[] value) {
        int valueLength = value == null ? 0 : value.length;
        byte[] header = new byte[7];
        ByteBuffer buffer = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(0, 3 + key.length + valueLength);
        buffer.put(4, op);
        buffer.putShort(5, (short) key.length);
        return valueLength == 0 ? new byte[][] {header, key} : new byte[][] {header, key, value};
    }

    /**
     * Encodes a response as the chunks of one send.
     *
     * @param status the status
     * @param payload the payload, possibly empty
     * @return header and payload chunks
     */
    public static byte[][] response(byte status, byte[] payload) {
        byte[] header = new byte[5];
        ByteBuffer buffer = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(0, 1 + payload.length);
        buffer.put(4, status);
        return new byte[][] {header, payload};
    }

    /**
     * Reads one frame's body.
     *
     * @param stream the stream
     * @return the body, or null on a length outside {@code [1, MAX_FRAME_BYTES]}
     * @throws dev.lockstep.RecvFailedException if the peer closed or reset
     */
    static byte[] readFrame(Stream stream) {
        byte[] prefix = stream.recv(4).await();
        int length = ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (length < 1 || length > MAX_FRAME_BYTES) {
            return null;
        }
        return stream.recv(length).await();
    }

    /**
     * Parses a request body.
     *
     * @param body the frame body
     * @return the request, or null if malformed
     */
    static Request parseRequest(byte[] body) {
        if (body.length < 3) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        byte op = buffer.get(0);
        int keyLength = Short.toUnsignedInt(buffer.getShort(1));
        if ((op != PUT && op != GET && op != DELETE) || keyLength == 0 || keyLength > Records.MAX_KEY_BYTES
                || 3 + keyLength > body.length || (op != PUT && 3 + keyLength != body.length)) {
            return null;
        }
        byte[] key = new byte[keyLength];
        System.arraycopy(body, 3, key, 0, keyLength);
        byte[] value = new byte[body.length - 3 - keyLength];
        System.arraycopy(body, 3 + keyLength, value, 0, value.length);
        return new Request(op, key, value);
    }

    /**
     * Reads one response.
     *
     * @param stream the stream
     * @return the response
     * @throws dev.lockstep.RecvFailedException if the peer closed or reset
     * @throws IllegalStateException on a malformed frame
     */
    static Response readResponse(Stream stream) {
        byte[] body = readFrame(stream);
        if (body == null || body[0] < OK || body[0] > BAD_REQUEST) {
            throw new IllegalStateException("malformed response frame");
        }
        byte[] payload = new byte[body.length - 1];
        System.arraycopy(body, 1, payload, 0, payload.length);
        return new Response(body[0], payload);
    }
}
