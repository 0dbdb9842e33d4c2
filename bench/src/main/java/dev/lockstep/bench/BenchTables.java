package dev.lockstep.bench;

import dev.lockstep.bench.Bench.Comparison;
import dev.lockstep.bench.Bench.Measurement;
import dev.lockstep.bench.Bench.Variant;
import java.util.Locale;

/** The benchmark's report tables: medians over the rounds, in Markdown. */
final class BenchTables {
    private BenchTables() {
    }

    /**
     * The comparison as a Markdown table: each variant's median over its rounds and its ratio to the first
     * (Lockstep's), with its per-round figures; a variant short of {@code rounds} rounds says how many failed.
     */
    static String table(Comparison comparison, int rounds) {
        StringBuilder table = new StringBuilder("### ").append(comparison.title()).append("\n\n");
        table.append("| variant | ").append(comparison.unit()).append(" (median) | Lockstep ÷ this | per round | ")
                .append("heap B/op | CPU µs/op | p50 µs | p99 µs |\n|---|---:|---:|---|---:|---:|---:|---:|\n");
        double lockstep = median(comparison.variants().getFirst(), Measurement::opsPerSecond);
        for (Variant variant : comparison.variants()) {
            if (variant.rounds.isEmpty()) {
                table.append("| ").append(variant.name)
                        .append(" | failed in every round (see the notes) | | | | | | |\n");
                continue;
            }
            double ops = median(variant, Measurement::opsPerSecond);
            java.util.StringJoiner perRound = new java.util.StringJoiner(", ",
                    variant.rounds.size() < rounds ? (rounds - variant.rounds.size()) + " failed; " : "", "");
            for (Measurement round : variant.rounds) {
                perRound.add(String.format(Locale.ROOT, "%,.0f", round.opsPerSecond()));
            }
            table.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %s | %s | %s | %s | %s |%n", variant.name, ops,
                    Double.isNaN(lockstep) ? "—" : String.format(Locale.ROOT, "%.2f", lockstep / ops), perRound,
                    cell(median(variant, Measurement::allocPerOp), "%,.0f"),
                    cell(median(variant, Measurement::cpuMicrosPerOp), "%.2f"),
                    cell(median(variant, Measurement::p50Micros), "%.1f"),
                    cell(median(variant, Measurement::p99Micros), "%.1f")));
        }
        return table.toString();
    }

    static String cell(double value, String format) {
        return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, format, value);
    }

    static double median(Variant variant, java.util.function.ToDoubleFunction<Measurement> field) {
        double[] values = variant.rounds.stream().mapToDouble(field).filter(v -> !Double.isNaN(v)).sorted()
                .toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
