package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class AuditorTest {

    @Test
    void digestMatchesTheDocumentedFormat() {
        // Computed independently (Python hashlib): events encoded as len(n+1) len(kind) kind len(f) f ..., 8-byte
        // big-endian lengths; digest = SHA-256(32 zero bytes || the encoded events) within the first segment.
        Auditor auditor = new Auditor();
        assertEquals("0".repeat(64), auditor.digest());
        auditor.record("kind", Auditor.u64(1));
        assertEquals("676b783ae77e0414b023f065e221d94121f12c3077fea4a946eece7ba84a7dd8", auditor.digest());
        assertEquals("676b783ae77e0414b023f065e221d94121f12c3077fea4a946eece7ba84a7dd8", auditor.digest(),
                "asking for the digest changes nothing");
        auditor.record("next");
        assertEquals("dc8981a2e28d6be46e5fe3504a6dff47401836478e65133e805751796a06baa4", auditor.digest());
        assertEquals(2, auditor.events());
    }

    @Test
    void aFullSegmentIsChainedAndTheNextEventHashedOntoIt() {
        // chain = SHA-256(zeros || 256 events), then digest = SHA-256(chain || event 257): also Python hashlib.
        Auditor auditor = new Auditor();
        for (int i = 0; i < Auditor.SEGMENT_EVENTS; i++) {
            auditor.record("e", Auditor.u32(i));
        }
        assertEquals("bd9174f3555d6415f2862cd77fd98c3394b6431feb7a52b28336f50b275c638d", auditor.digest());
        Auditor restored = Auditor.fromState(auditor.snapshot());
        auditor.record("e", Auditor.u32(Auditor.SEGMENT_EVENTS));
        restored.record("e", Auditor.u32(Auditor.SEGMENT_EVENTS));
        assertEquals("70264191ef58ad4d9b45ad34f480618bc0b4feec093a64e7899545c5e9516986", auditor.digest());
        assertEquals(auditor.digest(), restored.digest());
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
        // The draw recorder encodes a draw exactly as record("draw", site, value) does.
        Auditor byHand = new Auditor();
        byHand.record("draw", Auditor.utf8("SCHEDULE"), Auditor.u64(new Generator(1).nextLong(Site.SCHEDULE)));
        assertEquals(byHand.digest(), a.digest());
    }
}
