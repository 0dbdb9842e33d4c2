package dev.lockstep.demo.resp;

import dev.lockstep.demo.kv.Records;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RESP2 requests in, replies out. Requests are arrays of bulk strings ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}, what
 * every client library and {@code redis-benchmark} send) or inline commands ({@code PING\r\n}, what a person types
 * into {@code nc}).
 *
 * <p>Parsing is incremental: {@link #feed} appends what a receive returned, {@link #next} returns the next whole
 * request or null when more bytes are needed. Memory is bounded by what arrived: a declared length is checked
 * against its bound and then only waited for, never allocated ahead; the buffer holds at most one request past
 * the ones already parsed. Bounds: {@value #MAX_ARGUMENTS} arguments, a bulk string of
 * {@link Records#MAX_VALUE_BYTES} bytes (the store's largest value), a whole request of four times that, and an
 * inline command or a length line of {@value #MAX_LINE_BYTES} bytes.
 *
 * <p>Hand-written: the Java RESP codecs on Maven Central come with a client (Jedis, Lettuce) or with Netty's
 * channel pipeline (netty-codec-redis), neither of which a server on {@code dev.lockstep} can use; the subset a
 * server needs is this class.
 *
 * <p>Not thread-safe: one per connection, used by the connection's task.
 */
final class RespCodec {
    /** The most arguments one request may have. */
    public static final int MAX_ARGUMENTS = 1024;
    /** The longest inline command or length line, {@code \r\n} excluded. */
    public static final int MAX_LINE_BYTES = 64 * 1024;
    /** The longest bulk string. */
    public static final int MAX_BULK_BYTES = Records.MAX_VALUE_BYTES;
    /** The most bytes one request may take, all its arguments with their framing. */
    public static final int MAX_REQUEST_BYTES = 4 * MAX_BULK_BYTES;

    private static final byte[] CRLF = {'\r', '\n'};

    private byte[] buffer = new byte[256];
    private int start;
    private int end;

    /**
     * Appends received bytes.
     *
     * @param bytes what a receive returned
     */
    public void feed(byte[] bytes) {
        if (bytes.length == 0) {
            return;
        }
        if (end + bytes.length > buffer.length) {
            int live = end - start;
            byte[] grown = live + bytes.length > buffer.length
                    ? new byte[Math.max(buffer.length * 2, live + bytes.length)] : buffer;
            System.arraycopy(buffer, start, grown, 0, live);
            buffer = grown;
            start = 0;
            end = live;
        }
        System.arraycopy(bytes, 0, buffer, end, bytes.length);
        end += bytes.length;
    }

    /**
     * Bytes received and not yet parsed into a request.
     *
     * @return the count
     */
    public int buffered() {
        return end - start;
    }

    /** The bytes the codec has allocated to hold what arrived. */
    int capacity() {
        return buffer.length;
    }

    /**
     * The next whole request, consumed, or null if its bytes have not all arrived.
     *
     * @return the command name and its arguments, as sent
     * @throws RespProtocolException naming the bad value; the codec is then unusable
     */
    public List<byte[]> next() {
        if (start == end) {
            return null;
        }
        if (buffer[start] != '*') {
            return nextInline();
        }
        List<byte[]> request = nextArray();
        if (request == null && end - start > MAX_REQUEST_BYTES) {
            throw new RespProtocolException("a request must take at most " + MAX_REQUEST_BYTES + " bytes; "
                    + (end - start) + " arrived and it is not whole");
        }
        return request;
    }

    private List<byte[]> nextArray() {
        int at = start;
        int lineEnd = lineEnd(at + 1);
        if (lineEnd < 0) {
            return null;
        }
        long count = number(at + 1, lineEnd, "an array length");
        if (count < 1 || count > MAX_ARGUMENTS) {
            throw new RespProtocolException("a request must have 1 to " + MAX_ARGUMENTS + " arguments, had " + count);
        }
        at = lineEnd + 2;
        List<byte[]> arguments = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            if (at >= end) {
                return null;
            }
            if (buffer[at] != '$') {
                throw new RespProtocolException("argument " + i + " must be a bulk string ('$'), was type byte "
                        + describe(buffer[at]));
            }
            lineEnd = lineEnd(at + 1);
            if (lineEnd < 0) {
                return null;
            }
            long length = number(at + 1, lineEnd, "a bulk length");
            if (length < 0 || length > MAX_BULK_BYTES) {
                throw new RespProtocolException("a bulk string must have 0 to " + MAX_BULK_BYTES + " bytes, had "
                        + length);
            }
            int dataStart = lineEnd + 2;
            if (end - dataStart < length + 2) {
                return null;
            }
            int dataEnd = dataStart + (int) length;
            if (buffer[dataEnd] != '\r' || buffer[dataEnd + 1] != '\n') {
                throw new RespProtocolException("a bulk string of " + length + " bytes must end with \\r\\n, ended"
                        + " with " + describe(buffer[dataEnd]) + " " + describe(buffer[dataEnd + 1]));
            }
            arguments.add(Arrays.copyOfRange(buffer, dataStart, dataEnd));
            at = dataEnd + 2;
        }
        start = at;
        compactIfEmpty();
        return arguments;
    }

    private List<byte[]> nextInline() {
        int lineEnd = lineEnd(start);
        if (lineEnd < 0) {
            return null;
        }
        String line = new String(buffer, start, lineEnd - start, StandardCharsets.UTF_8);
        start = lineEnd + 2;
        compactIfEmpty();
        List<byte[]> arguments = new ArrayList<>();
        for (String word : line.trim().split("[ \t]+")) {
            if (!word.isEmpty()) {
                arguments.add(word.getBytes(StandardCharsets.UTF_8));
            }
        }
        if (arguments.size() > MAX_ARGUMENTS) {
            throw new RespProtocolException("a request must have 1 to " + MAX_ARGUMENTS + " arguments, had "
                    + arguments.size());
        }
        return arguments.isEmpty() ? next() : arguments;
    }

    /** The index of the {@code \r} ending the line from {@code from}, or -1 if it has not arrived. */
    private int lineEnd(int from) {
        int limit = Math.min(end - 1, from + MAX_LINE_BYTES);
        for (int i = from; i < limit; i++) {
            if (buffer[i] == '\r' && buffer[i + 1] == '\n') {
                return i;
            }
        }
        if (end - from > MAX_LINE_BYTES + 1) {
            throw new RespProtocolException("a line must end within " + MAX_LINE_BYTES + " bytes; "
                    + (end - from) + " bytes arrived without \\r\\n");
        }
        return -1;
    }

    private long number(int from, int to, String what) {
        if (from == to || to - from > 18) {
            throw new RespProtocolException(what + " must be 1 to 18 decimal digits, was '"
                    + new String(buffer, from, Math.min(to - from, 40), StandardCharsets.ISO_8859_1) + "'");
        }
        boolean negative = buffer[from] == '-';
        long value = 0;
        for (int i = negative ? from + 1 : from; i < to; i++) {
            byte digit = buffer[i];
            if (digit < '0' || digit > '9') {
                throw new RespProtocolException(what + " must be decimal digits, was '"
                        + new String(buffer, from, to - from, StandardCharsets.ISO_8859_1) + "'");
            }
            value = value * 10 + (digit - '0');
        }
        if (negative && to - from == 1) {
            throw new RespProtocolException(what + " must be decimal digits, was '-'");
        }
        return negative ? -value : value;
    }

    private void compactIfEmpty() {
        if (start == end) {
            start = 0;
            end = 0;
            if (buffer.length > 64 * 1024) {
                buffer = new byte[256]; // a large request passed: do not keep its buffer for an idle connection
            }
        }
    }

    private static String describe(byte value) {
        return value >= 0x21 && value < 0x7f ? "'" + (char) value + "'" : String.format("0x%02x", value & 0xff);
    }

    /**
     * A simple string reply, {@code +OK\r\n}.
     *
     * @param text without {@code \r} or {@code \n}
     * @return the encoded reply
     */
    public static byte[] simple(String text) {
        return ("+" + text + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * An error reply, {@code -ERR message\r\n}; line breaks in the message become spaces.
     *
     * @param message what went wrong
     * @return the encoded reply
     */
    public static byte[] error(String message) {
        return ("-ERR " + message.replace('\r', ' ').replace('\n', ' ') + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * An integer reply, {@code :1\r\n}.
     *
     * @param value the number
     * @return the encoded reply
     */
    public static byte[] integer(long value) {
        return (":" + value + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A bulk string reply, or the null bulk string {@code $-1\r\n} for null.
     *
     * @param value the bytes, or null
     * @return the encoded reply
     */
    public static byte[] bulk(byte[] value) {
        if (value == null) {
            return "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
        }
        byte[] header = ("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] reply = Arrays.copyOf(header, header.length + value.length + 2);
        System.arraycopy(value, 0, reply, header.length, value.length);
        System.arraycopy(CRLF, 0, reply, header.length + value.length, 2);
        return reply;
    }

    /**
     * An array reply of bulk strings.
     *
     * @param values the elements
     * @return the encoded reply
     */
    public static byte[] array(List<byte[]> values) {
        byte[] header = ("*" + values.size() + "\r\n").getBytes(StandardCharsets.US_ASCII);
        int length = header.length;
        List<byte[]> encoded = new ArrayList<>(values.size());
        for (byte[] value : values) {
            byte[] element = bulk(value);
            encoded.add(element);
            length += element.length;
        }
        byte[] reply = Arrays.copyOf(header, length);
        int at = header.length;
        for (byte[] element : encoded) {
            System.arraycopy(element, 0, reply, at, element.length);
            at += element.length;
        }
        return reply;
    }
}
