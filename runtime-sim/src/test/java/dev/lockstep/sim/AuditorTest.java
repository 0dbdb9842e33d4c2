package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class AuditorTest {

    @Test
    void chainMatchesTheDocumentedFormat() {
        // Computed independently: SHA-256(len(prev) prev len(kind) kind len(field) field), 8-byte BE lengths.
        Auditor auditor = new Auditor();
        assertEquals("0".repeat(64), auditor.digest());
        auditor.record("kind", Auditor.u64(1));
        assertEquals("54d2b7fd666aea37502a100e7426c78e1f0c9c5df2177c26e52168e694655848", auditor.digest());
        auditor.record("next");
        assertEquals("8e9909eb47ffba24cd1fe0909dba8ccc405cf7128a71c559619434adcc0c0e18", auditor.digest());
        assertEquals(2, auditor.events());
    }

    @Test
    void lengthPrefixesMakeEventsUnambiguous() {
        Auditor split1 = new Auditor();
        split1.record("a", Auditor.utf8("bc"));
        Auditor split2 = new Auditor();
        split2.record("ab", Auditor.utf8("c"));
        assertNotEquals(split1.digest(), split2.digest());
        Auditor oneField = new Auditor();
        oneField.record("a", Auditor.utf8("x"));
        Auditor extraEmpty = new Auditor();
        extraEmpty.record("a", Auditor.utf8("x"), new byte[0]);
        assertNotEquals(oneField.digest(), extraEmpty.digest());
    }

    @Test
    void copiesAndSnapshotsContinueTheSameChainIndependently() {
        Auditor auditor = new Auditor();
        auditor.record("one", Auditor.u32(1));
        Auditor copy = auditor.copy();
        Auditor restored = Auditor.fromState(auditor.snapshot());
        auditor.record("two");
        assertNotEquals(auditor.digest(), copy.digest());
        copy.record("two");
        restored.record("two");
        assertEquals(auditor.digest(), copy.digest());
        assertEquals(auditor.snapshot(), restored.snapshot());
    }

    @Test
    void drawRecorderHashesDraws() {
        Auditor a = new Auditor();
        Generator generatorA = new Generator(1);
        generatorA.setObserver(a.drawRecorder());
        generatorA.nextLong(Site.SCHEDULE);
        Auditor b = new Auditor();
        Generator generatorB = new Generator(1);
        generatorB.setObserver(b.drawRecorder());
        generatorB.nextLong(Site.APPLICATION); // same value, other site
        assertEquals(1, a.events());
        assertNotEquals(a.digest(), b.digest());
    }
}
