package dev.lockstep.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader for tool output (fio's {@code --output-format=json}): objects become
 * {@link LinkedHashMap}s, arrays {@link ArrayList}s, numbers {@link Double}s, plus strings, booleans and null.
 * Not for untrusted or large input; it exists so the benchmarks need no JSON library.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value.
     *
     * @param text the document
     * @return the value
     * @throws IllegalArgumentException naming the offset of a syntax error
     */
    static Object parse(String text) {
        Json json = new Json(text);
        Object value = json.value();
        json.skipSpace();
        return value;
    }

    /**
     * Walks into a parsed document by object keys and array indices.
     *
     * @param document the parsed document
     * @param steps {@code String} keys and {@code Integer} indices
     * @return the value there
     * @throws IllegalArgumentException naming the step that is missing
     */
    static Object path(Object document, Object... steps) {
        Object current = document;
        for (Object step : steps) {
            Object next = null;
            if (step instanceof String key && current instanceof Map<?, ?> map) {
                next = map.get(key);
            } else if (step instanceof Integer index && current instanceof List<?> list && index < list.size()) {
                next = list.get(index);
            }
            if (next == null) {
                throw new IllegalArgumentException("no " + step + " in " + abbreviate(current));
            }
            current = next;
        }
        return current;
    }

    private static String abbreviate(Object value) {
        String text = String.valueOf(value);
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at offset " + at + " of the JSON document");
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("expected " + word);
        }
        at += word.length();
        return value;
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (text.charAt(at) == '}') {
            at++;
            return map;
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            if (text.charAt(at++) != ':') {
                throw error("expected ':'");
            }
            map.put(key, value());
            skipSpace();
            char next = text.charAt(at++);
            if (next == '}') {
                return map;
            }
            if (next != ',') {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        at++;
        skipSpace();
        if (text.charAt(at) == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            skipSpace();
            char next = text.charAt(at++);
            if (next == ']') {
                return list;
            }
            if (next != ',') {
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string() {
        if (text.charAt(at) != '"') {
            throw error("expected a string");
        }
        at++;
        StringBuilder builder = new StringBuilder();
        while (true) {
            char c = text.charAt(at++);
            if (c == '"') {
                return builder.toString();
            }
            if (c != '\\') {
                builder.append(c);
                continue;
            }
            char escaped = text.charAt(at++);
            switch (escaped) {
                case 'n' -> builder.append('\n');
                case 't' -> builder.append('\t');
                case 'r' -> builder.append('\r');
                case 'b' -> builder.append('\b');
                case 'f' -> builder.append('\f');
                case 'u' -> {
                    builder.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> builder.append(escaped);
            }
        }
    }

    private Double number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (start == at) {
            throw error("unexpected character '" + text.charAt(at) + "'");
        }
        return Double.valueOf(text.substring(start, at));
    }
}
