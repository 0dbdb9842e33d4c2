package dev.lockstep.demo;

/**
 * Whole numbers as the command line, replay lines and reports write them: ASCII digits with an optional leading
 * minus, nothing else. {@link Long#parseLong} also takes a leading {@code +} and the digits of every script
 * (Arabic-Indic, Devanagari, full-width), and picocli's converters take octal ({@code 010} is 8): a replay line or
 * an option that means something other than what it shows is refused instead.
 */
final class Decimal {
    private Decimal() {
    }

    /**
     * Parses a {@code long}.
     *
     * @param text the text
     * @return its value
     * @throws NumberFormatException naming the text if it is not ASCII decimal digits with an optional leading
     *                               {@code -}, or does not fit a {@code long}
     */
    static long parseLong(String text) {
        if (!isDecimal(text)) {
            throw new NumberFormatException("'" + text + "' is not a whole number in decimal digits");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException tooLarge) {
            throw new NumberFormatException("'" + text + "' is out of the range of a 64-bit number");
        }
    }

    /**
     * Parses an {@code int}.
     *
     * @param text the text
     * @return its value
     * @throws NumberFormatException naming the text if it is not ASCII decimal digits with an optional leading
     *                               {@code -}, or does not fit an {@code int}
     */
    static int parseInt(String text) {
        long value = parseLong(text);
        if (value != (int) value) {
            throw new NumberFormatException("'" + text + "' is out of the range of a 32-bit number");
        }
        return (int) value;
    }

    private static boolean isDecimal(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        if (text.length() == start) {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
