package dev.lockstep.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code ./lockstep bench}'s arguments: what a user types is read as asked, and a mistake is refused before any
 * benchmark is built or run, with a message naming the bad argument (the command prints it and exits 2).
 */
class BenchOptionsTest {

    @Test
    void theArgumentsAreReadAsAsked() {
        BenchOptions defaults = BenchOptions.parse();
        assertEquals(3, defaults.rounds());
        assertTrue(defaults.only().containsAll(Set.of("nop", "echo", "sim")));
        BenchOptions quick = BenchOptions.parse("--quick", "--only", "nop,echo", "--fio", "/opt/fio",
                "--out", "results.md");
        assertTrue(quick.quick());
        assertEquals(2, quick.rounds(), "a quick run has two rounds unless told");
        assertEquals(Set.of("nop", "echo"), quick.only());
        assertEquals(Map.of("fio", "/opt/fio"), quick.tools());
        assertEquals(Path.of("results.md"), quick.out());
        assertEquals(5, BenchOptions.parse("--quick", "--rounds", "5").rounds());
    }

    @Test
    void aMistakeIsRefusedNamingIt() {
        String[][] cases = {
            {"--rounds 0", "--rounds must be a number of at least 1, was 0"},
            {"--rounds -2", "--rounds must be a number of at least 1, was -2"},
            {"--rounds many", "--rounds must be a number of at least 1, was many"},
            {"--rounds", "--rounds needs a value"},
            {"--only nop,bogus", "unknown comparison bogus; known: nop,warm-read"},
            {"--bogus", "unknown argument --bogus; known: --quick"},
            {"--quick --out", "--out needs a value"},
        };
        for (String[] mistake : cases) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> BenchOptions.parse(mistake[0].split(" ")), mistake[0]);
            assertTrue(refused.getMessage().startsWith(mistake[1]), mistake[0] + ": " + refused.getMessage());
        }
    }
}
