package dev.lockstep.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code ./lockstep bench}'s command line asked for ({@link Bench}'s usage).
 *
 * @param quick shorter runs
 * @param rounds interleaved rounds, {@code >= 1}
 * @param only the comparisons to run, each one of {@link #ALL}
 * @param dir where the benchmarks' files go
 * @param out where the report is written
 * @param tools paths of the reference programs and of the simulator's classpath, by option name
 */
record BenchOptions(boolean quick, int rounds, Set<String> only, Path dir, Path out, Map<String, String> tools) {
    /** Every comparison, by the name {@code --only} takes. */
    static final List<String> ALL = List.of("nop", "warm-read", "direct-read", "append-sync", "echo",
            "echo-placement", "sim", "resp", "idle");

    private static final String USAGE = "known: --quick --rounds N --only " + String.join(",", ALL)
            + " --dir DIR --nop PATH --echo-client PATH --fio PATH --sim-classpath CP --demo-classpath CP"
            + " --lockstep PATH"
            + " --redis-server PATH --redis-benchmark PATH --out FILE";

    /**
     * Parses the arguments.
     *
     * @param args the command line
     * @return the options
     * @throws IllegalArgumentException naming the bad argument or value: an unknown option or comparison, an
     *                                  option without its value, a count of rounds that is not a number of at
     *                                  least 1
     */
    static BenchOptions parse(String... args) {
        boolean quick = false;
        Integer rounds = null;
        Set<String> only = Set.copyOf(ALL);
        Path dir = Path.of("bench/target/bench-data");
        Path out = Path.of("bench/target/bench-results.md");
        Map<String, String> tools = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--quick")) {
                quick = true;
                continue;
            }
            if (!option.equals("--rounds") && !option.equals("--only") && !option.equals("--dir")
                    && !option.equals("--out") && !option.equals("--nop") && !option.equals("--echo-client")
                    && !option.equals("--fio") && !option.equals("--sim-classpath")
                    && !option.equals("--lockstep") && !option.equals("--redis-server")
                    && !option.equals("--redis-benchmark") && !option.equals("--demo-classpath")) {
                throw new IllegalArgumentException("unknown argument " + option + "; " + USAGE);
            }
            if (i + 1 == args.length || args[i + 1].isBlank()) {
                throw new IllegalArgumentException(option + " needs a value; " + USAGE);
            }
            String value = args[++i];
            switch (option) {
                case "--rounds" -> {
                    try {
                        rounds = Integer.parseInt(value);
                    } catch (NumberFormatException notANumber) {
                        rounds = 0;
                    }
                    if (rounds < 1) {
                        throw new IllegalArgumentException("--rounds must be a number of at least 1, was "
                                + value);
                    }
                }
                case "--only" -> {
                    only = Set.of(value.split(","));
                    for (String name : only) {
                        if (!ALL.contains(name)) {
                            throw new IllegalArgumentException("unknown comparison " + name + "; known: "
                                    + String.join(",", ALL));
                        }
                    }
                }
                case "--dir" -> dir = Path.of(value);
                case "--out" -> out = Path.of(value);
                default -> tools.put(option.substring(2), value);
            }
        }
        return new BenchOptions(quick, rounds != null ? rounds : quick ? 2 : 3, only, dir, out, Map.copyOf(tools));
    }
}
