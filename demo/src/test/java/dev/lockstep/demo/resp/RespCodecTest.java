package dev.lockstep.demo.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RESP2 requests parsed whole or in any split, replies encoded byte for byte, bad framing refused by name. */
class RespCodecTest {
    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> strings(List<byte[]> request) {
        return request.stream().map(bytes -> new String(bytes, StandardCharsets.ISO_8859_1)).toList();
    }

    @Test
    void pipelinedArraysParseWhateverTheSplit() {
        String wire = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n*1\r\n$4\r\nPING\r\n";
        for (int split = 1; split <= wire.length(); split++) {
            RespCodec codec = new RespCodec();
            List<List<String>> parsed = new java.util.ArrayList<>();
            for (int at = 0; at < wire.length(); at += split) {
                codec.feed(b(wire.substring(at, Math.min(wire.length(), at + split))));
                List<byte[]> request;
                while ((request = codec.next()) != null) {
                    parsed.add(strings(request));
                }
            }
            assertEquals(List.of(List.of("SET", "key", "va\r\nl"), List.of("GET", "key"), List.of("PING")), parsed,
                    "fed in pieces of " + split);
            assertEquals(0, codec.buffered());
        }
    }

    @Test
    void inlineCommandsAreWords() {
        RespCodec codec = new RespCodec();
        codec.feed(b("  set  a 1\r\n\r\nPING\r\n"));
        assertEquals(List.of("set", "a", "1"), strings(codec.next()));
        assertEquals(List.of("PING"), strings(codec.next()), "an empty line is skipped");
        assertNull(codec.next());
    }

    @Test
    void badFramingIsRefusedNamingTheValue() {
        assertEquals("argument 0 must be a bulk string ('$'), was type byte ':'",
                refused("*1\r\n:5\r\n"));
        assertEquals("a bulk length must be decimal digits, was '1x'", refused("*1\r\n$1x\r\n"));
        assertEquals("an array length must be 1 to 18 decimal digits, was ''", refused("*\r\n"));
        assertEquals("a request must have 1 to 1024 arguments, had 1025", refused("*1025\r\n"));
        assertEquals("a request must have 1 to 1024 arguments, had 0", refused("*0\r\n"));
        assertEquals("a bulk string must have 0 to 1048576 bytes, had 1048577", refused("*1\r\n$1048577\r\n"));
        assertEquals("a bulk string must have 0 to 1048576 bytes, had -1", refused("*1\r\n$-1\r\n"));
        assertEquals("a bulk string of 2 bytes must end with \\r\\n, ended with 'c' 'd'", refused("*1\r\n$2\r\nabcd"));
    }

    @Test
    void aDeclaredLengthReservesNothingUntilItsBytesArrive() {
        RespCodec codec = new RespCodec();
        byte[] arrived = b("*2\r\n$3\r\nGET\r\n$1048576\r\n0123456789");
        codec.feed(arrived);
        assertNull(codec.next(), "the value has not arrived");
        assertEquals(arrived.length, codec.buffered(), "only what arrived is held");
        assertTrue(codec.capacity() <= 256, "the declared 1 MiB is not allocated: " + codec.capacity() + " bytes");
    }

    @Test
    void aLineWithoutEndIsRefusedPastItsBound() {
        RespCodec codec = new RespCodec();
        codec.feed(new byte[RespCodec.MAX_LINE_BYTES]);
        assertNull(codec.next(), "a long inline line may still end");
        codec.feed(new byte[] {'x', 'y'});
        RespProtocolException refused = assertThrows(RespProtocolException.class, codec::next);
        assertTrue(refused.getMessage().startsWith("a line must end within 65536 bytes; 65538 bytes arrived"),
                refused.getMessage());
    }

    @Test
    void aRequestPastItsBoundIsRefusedBeforeItIsWhole() {
        RespCodec codec = new RespCodec();
        codec.feed(b("*8\r\n"));
        byte[] value = new byte[RespCodec.MAX_BULK_BYTES];
        byte[] header = b("$" + value.length + "\r\n");
        for (int i = 0; i < 3; i++) {
            codec.feed(header);
            codec.feed(value);
            codec.feed(b("\r\n"));
        }
        assertNull(codec.next(), "under the bound it may still be whole");
        codec.feed(header);
        codec.feed(value);
        RespProtocolException refused = assertThrows(RespProtocolException.class, codec::next);
        assertTrue(refused.getMessage().startsWith("a request must take at most 4194304 bytes;"),
                refused.getMessage());
    }

    @Test
    void repliesAreEncodedAsRedisSendsThem() {
        assertArrayEquals(b("+OK\r\n"), RespCodec.simple("OK"));
        assertArrayEquals(b("-ERR bad thing\r\n"), RespCodec.error("bad\nthing"));
        assertArrayEquals(b(":42\r\n"), RespCodec.integer(42));
        assertArrayEquals(b("$-1\r\n"), RespCodec.bulk(null));
        assertArrayEquals(b("$3\r\na\r\n\r\n"), RespCodec.bulk(b("a\r\n")));
        assertArrayEquals(b("*2\r\n$1\r\na\r\n$-1\r\n"), RespCodec.array(java.util.Arrays.asList(b("a"), null)));
    }

    private static String refused(String wire) {
        RespCodec codec = new RespCodec();
        codec.feed(b(wire));
        return assertThrows(RespProtocolException.class, codec::next).getMessage();
    }
}
