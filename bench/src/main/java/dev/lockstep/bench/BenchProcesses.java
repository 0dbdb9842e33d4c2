package dev.lockstep.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Running the benchmark's programs as processes and reading what they report: each measured program prints one
 * {@code RESULT name=value ...} line. Used from the one thread that runs the benchmark.
 */
final class BenchProcesses {
    private BenchProcesses() {
    }

    /** The measurement in a program's {@code RESULT} line, from its {@code output}. */
    static Bench.Measurement resultOf(List<String> output) {
        for (String line : output) {
            if (line.startsWith("RESULT ")) {
                return measurement(fields(line));
            }
        }
        throw new IllegalStateException("no RESULT line in: " + String.join(" / ", output));
    }

    /**
     * A measurement from a {@code RESULT} line's fields: {@code ops} in {@code seconds}, and {@code alloc} (heap
     * bytes), {@code cpu}, {@code p50} and {@code p99} (nanoseconds) where the program gives them.
     */
    static Bench.Measurement measurement(Map<String, String> fields) {
        double ops = Double.parseDouble(fields.get("ops"));
        double elapsed = Double.parseDouble(fields.get("seconds"));
        if (ops <= 0) {
            throw new IllegalStateException("no operations measured: " + fields);
        }
        double alloc = fields.containsKey("alloc") && !fields.get("alloc").equals("0")
                ? Double.parseDouble(fields.get("alloc")) / ops : fields.containsKey("alloc") ? 0 : Double.NaN;
        return new Bench.Measurement(ops / elapsed, alloc, micros(fields.get("cpu")) / ops, micros(fields.get("p50")),
                micros(fields.get("p99")));
    }

    private static double micros(String nanos) {
        return nanos == null ? Double.NaN : Double.parseDouble(nanos) / 1000.0;
    }

    /** The {@code name=value} fields of a {@code RESULT} line. */
    static Map<String, String> fields(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String field : line.substring("RESULT ".length()).trim().split("\\s+")) {
            int equals = field.indexOf('=');
            fields.put(field.substring(0, equals), field.substring(equals + 1));
        }
        return fields;
    }

    /** Runs {@code command} to its end; its output lines, or an exception naming it if it failed. */
    static List<String> command(String... command) {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException failed) {
            throw new IllegalStateException("could not run " + command[0] + ": " + failed.getMessage(), failed);
        }
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = reader(process)) {
            process.getOutputStream().close();
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException failed) {
            throw new IllegalStateException("reading " + command[0], failed);
        }
        int exit = waitFor(process);
        if (exit != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + exit);
        }
        return lines;
    }

    static BufferedReader reader(Process process) {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * The process's exit status, waited for however often the waiting thread is interrupted. An interrupt is
     * remembered and the flag restored only on return: restoring it inside the loop would make the next
     * {@code waitFor} throw at once, a busy spin until the process ends.
     */
    static int waitFor(Process process) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor();
                } catch (InterruptedException interrupt) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
