package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What users paste back: a fault profile and a {@code Simulations.replay} line mean exactly what they show, or are
 * refused naming what is wrong; nothing that reads as one run silently replays another.
 */
@org.junit.jupiter.api.Tag("adversarial")
class StrictParsingTest {

    @Test
    void aFaultProfileThatIsEmptyRepeatedOrOddlyNumberedIsRefused() {
        String[][] profiles = {
            // Read as "none": a profile lost to quoting ran every seed without faults.
            {"", "an empty fault profile ''"},
            {"  ", "an empty fault profile"},
            {"@2", "an empty fault profile '@2'"},
            {"crash+crash", "fault profile 'crash+crash' names crash twice"},
            {"crash,sync-errors+CRASH", "names crash twice"},
            {"crash+", "unknown fault ''"},
            // Double.parseDouble reads these; none is what toString writes.
            {"crash@NaN", "bad intensity 'NaN'"},
            {"crash@Infinity", "bad intensity 'Infinity'"},
            {"crash@0x1p1", "bad intensity '0x1p1'"},
            {"crash@2d", "bad intensity '2d'"},
            {"crash@+2", "bad intensity '+2'"},
            {"crash@ 2", "bad intensity ' 2'"},
            {"crash@60", "must be in [0, 50], was 60.0"},
        };
        for (String[] profile : profiles) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> FaultConfig.parse(profile[0]), profile[0]);
            assertTrue(refused.getMessage().contains(profile[1]), profile[0] + ": " + refused.getMessage());
        }
        // What toString writes still reads back, a small intensity in scientific notation too.
        for (FaultConfig config : new FaultConfig[] {FaultConfig.NONE, FaultConfig.ALL.withIntensity(1.0E-4),
                FaultConfig.of(Fault.CRASH, Fault.SYNC_ERRORS).withIntensity(2.5), FaultConfig.swarm(7)}) {
            assertEquals(config, FaultConfig.parse(config.toString()), config.toString());
        }
    }

    @Test
    void aReplayWhoseNumbersAreNotDecimalAsciiIsRefused() {
        // Long.parseLong reads Arabic-Indic and full-width digits and a leading '+': the line shows no seed 12.
        String rest = " workers=1 faults=none crashes=0 crashWithinNanos=1000000 timeLimitNanos=1000000000";
        for (String seed : new String[] {"\u0661\u0662", "\uFF11\uFF12", "+12"}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> Simulations.replay("seed=" + seed + rest, ctx -> null), seed);
            assertTrue(refused.getMessage().contains("has seed=" + seed + ", not a number in decimal digits"),
                    refused.getMessage());
        }
        IllegalArgumentException workers = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay("seed=12" + rest.replace("workers=1", "workers=\u0661"), ctx -> null));
        assertTrue(workers.getMessage().contains("workers=\u0661, not a number"), workers.getMessage());
        IllegalArgumentException faults = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay("seed=12" + rest.replace("faults=none", "faults="), ctx -> null));
        assertTrue(faults.getMessage().contains("an empty fault profile"), faults.getMessage());
        Simulations.replay("seed=12" + rest, ctx -> null); // the line as written runs
    }
}
