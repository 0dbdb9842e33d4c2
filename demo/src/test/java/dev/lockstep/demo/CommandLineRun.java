package dev.lockstep.demo;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * What one run of {@code ./lockstep}'s command line did, run in the test's JVM ({@link Main#commandLine()}): its
 * exit status and what it wrote to its error and output streams.
 *
 * @param status its exit status
 * @param errors what it wrote to its error stream
 * @param output what it wrote to its output stream
 */
record CommandLineRun(int status, String errors, String output) {
    /** Runs the command line with {@code args}, capturing both streams. */
    static CommandLineRun run(String... args) {
        CommandLine line = Main.commandLine();
        StringWriter errors = new StringWriter();
        StringWriter output = new StringWriter();
        line.setErr(new PrintWriter(errors, true));
        line.setOut(new PrintWriter(output, true));
        int status = line.execute(args);
        return new CommandLineRun(status, errors.toString(), output.toString());
    }
}
