package dev.lockstep.demo;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table with right-aligned columns after the first. */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table row(String... cells) {
        rows.add(cells);
        return this;
    }

    String render(String indent) {
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < row.length; c++) {
                String cell = row[c];
                if (c == 0) {
                    line.append(cell).append(" ".repeat(widths[c] - cell.length()));
                } else {
                    line.append("   ").append(" ".repeat(widths[c] - cell.length())).append(cell);
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    static String count(long value) {
        return String.format("%,d", value);
    }

    static String millis(long nanos) {
        double ms = nanos / 1e6;
        return ms < 10 ? String.format("%.2f ms", ms) : ms < 100 ? String.format("%.1f ms", ms)
                : String.format("%.0f ms", ms);
    }
}
