package dev.lockstep.sim.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class AuditorTest {

    @Test
    void digestMatchesTheDocumentedFormat() {
        // Computed independently (Python hashlib): a kind outside AuditKind.KINDS is 0, varint(len), UTF-8; a listed
        // kind its code (ring.now is 3); then varint(fields) and each field as varint(len) and its bytes, numbers
        // big-endian without leading zeros; digest = SHA-256(32 zero bytes || the encoded events) within a chunk.
        Auditor auditor = new Auditor();
        assertEquals("0".repeat(64), auditor.digest());
        auditor.record("kind", Auditor.u64(1));
        assertEquals("cd2801917eee26e1fb57bb66a77e4dbfde7b26675cc54daa9204ee4e9e2abcca", auditor.digest());
        assertEquals("cd2801917eee26e1fb57bb66a77e4dbfde7b26675cc54daa9204ee4e9e2abcca", auditor.digest(),
                "asking for the digest changes nothing");
        auditor.record("next");
        assertEquals("512b4cf312a4cf5811643cfbb66f02349ce041eafeb3121668050ea31de5e2bb", auditor.digest());
        auditor.recordU64U64(AuditKind.RING_NOW, 3, 0x1234);
        assertEquals("0c560c1eb6b4dd8b427d7bf0af6449e44b8d8d825812ed82ba001ac7d78e8d83", auditor.digest());
        assertEquals(3, auditor.events());
    }

    @Test
    void kindsRecordedByNameKeepTheirEncodingAsTheTableOfKindsGrows() throws Exception {
        // 150 kinds outside AuditKind.KINDS, each recorded three times, interleaved with a listed one: the auditor's
        // table of kinds grows twice on the way, and every event must still encode as the format says (0,
        // varint(len), the name; then varint(0) fields), or a listed kind as its code (sys is 13).
        Auditor auditor = new Auditor();
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 150; i++) {
                String name = "custom.kind." + i;
                auditor.record(name);
                expected.write(0);
                expected.write(name.length());
                expected.write(Auditor.utf8(name));
                expected.write(0);
                auditor.record("sys");
                expected.write(13);
                expected.write(0);
            }
        }
        java.security.MessageDigest sha256 = java.security.MessageDigest.getInstance("SHA-256");
        sha256.update(new byte[Auditor.DIGEST_BYTES]);
        sha256.update(expected.toByteArray());
        assertTrue(expected.size() < Auditor.CHUNK_BYTES, "one chunk: the digest is SHA-256(zeros || events)");
        assertEquals(java.util.HexFormat.of().formatHex(sha256.digest()), auditor.digest());
        assertEquals(900, auditor.events());
    }

    @Test
    void aFullChunkIsChainedAndTheNextEventHashedOntoIt() {
        // 2378 events of 6 or 7 bytes are the first to reach Auditor.CHUNK_BYTES: chain = SHA-256(zeros || them),
        // which is then the digest; the next event is hashed onto the chain. Also Python hashlib.
        Auditor auditor = new Auditor();
        for (int i = 0; i < 2378; i++) {
            auditor.record("e", Auditor.u32(i));
        }
        assertEquals("4a4687a824b34bc6325a9f2dc62415f7f8625f31167a77fe07108cf374f647ce", auditor.digest());
        assertEquals(0, auditor.snapshot().pending().length, "the chunk was hashed into the chain");
        Auditor restored = Auditor.fromState(auditor.snapshot());
        auditor.record("e", Auditor.u32(2378));
        restored.record("e", Auditor.u32(2378));
        assertEquals("c545880bee19c5c450210e1bea301fff7a0a089af465ae18240d0b26aef80153", auditor.digest());
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
        // A listed kind's code cannot be mistaken for the first byte of a field or of another kind's name.
        Auditor listed = new Auditor();
        listed.record("ring.now", Auditor.u64(1), Auditor.u64(2));
        Auditor twoEvents = new Auditor();
        twoEvents.record("ring.now", Auditor.u64(1));
        twoEvents.record("ring.now", Auditor.u64(2));
        assertNotEquals(listed.digest(), twoEvents.digest());
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
        // The draw recorder encodes a draw exactly as record("draw", site's position, value) does.
        Auditor byHand = new Auditor();
        byHand.record("draw", Auditor.u32(Site.SCHEDULE.ordinal()),
                Auditor.u64(new Generator(1).nextLong(Site.SCHEDULE)));
        assertEquals(byHand.digest(), a.digest());
    }

    @Test
    void sitesKeepTheirPositions() {
        // A draw is hashed with its site's position in Site: a site added anywhere but at the end would change
        // every pinned digest. Extend this list when adding a site at the end.
        assertEquals(List.of("SCHEDULE", "APPLICATION", "RING_LATENCY", "COMPLETION_ORDER", "SHORT_READ",
                "SHORT_WRITE", "SPURIOUS_EAGAIN", "SPURIOUS_EINTR", "CANCEL_RACE", "CANCEL_RACE_RESULT", "FAULT_OPEN",
                "FAULT_READ", "FAULT_WRITE", "FAULT_SYNC", "FAULT_RESIZE", "FAULT_REMOVE", "FAULT_SCAN",
                "PARTIAL_WRITE", "CRASH_PREFIX", "CRASH_SUBSET", "CRASH_TEAR", "NETWORK_JITTER", "NETWORK_BREAK",
                "CRASH_POINT", "SYNC_WRITEBACK", "SYSCALL_LATENCY", "INLINE_COMPLETION", "CRASH_ENTRY", "FAULT_POINT_ENABLED",
                "FAULT_POINT_FIRED", "PRIORITY_CHANGE_POINT", "FIBER_PRIORITY", "CORRUPT_READ", "CORRUPT_WRITE",
                "MISDIRECTED_WRITE", "FAULT_METADATA_FULL"),
                java.util.Arrays.stream(Site.values()).map(Site::name).toList());
    }

    @Test
    void theAllocationFreeRecordsEncodeAsRecordDoes() {
        byte[] opcode = Auditor.utf8("READ");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(5);
            buffer.copyFrom(MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5}));
            sameDigest(auditor -> auditor.recordRingComplete(7, 9, opcode, -1L, -4, 1L << 60, buffer, 3, null),
                    auditor -> auditor.record("ring.complete", Auditor.u64(7), Auditor.u64(9), opcode,
                            Auditor.u64(-1L), Auditor.u32(-4), Auditor.u64(1L << 60), new byte[] {1, 2, 3}));
        }
        sameDigest(auditor -> auditor.recordRingEnter(1, 1, 0, 255, 256),
                auditor -> auditor.record("ring.enter", Auditor.u64(1), Auditor.u32(1), Auditor.u64(0),
                        Auditor.u64(255), Auditor.u32(256)));
        sameDigest(auditor -> auditor.recordRingStage(2, 3, opcode, -1, 4096, 4096, 0, 8, 0xABCDL, 0),
                auditor -> auditor.record("ring.stage", Auditor.u64(2), Auditor.u64(3), opcode, Auditor.u32(-1),
                        Auditor.u64(4096), Auditor.u32(4096), Auditor.u32(0), Auditor.u32(8), Auditor.u64(0xABCDL),
                        Auditor.u64(0)));
        sameDigest(auditor -> auditor.recordRingSubmit(2, 3, Long.MAX_VALUE, Integer.MIN_VALUE),
                auditor -> auditor.record("ring.submit", Auditor.u64(2), Auditor.u64(3),
                        Auditor.u64(Long.MAX_VALUE), Auditor.u32(Integer.MIN_VALUE)));
        sameDigest(auditor -> auditor.recordU64(AuditKind.CLOCK_SLIP, 42),
                auditor -> auditor.record("clock.slip", Auditor.u64(42)));
        // A read at the call: every sign and number of digits of the result, payloads of none, a few bytes, and
        // more than a block (hashed by blocks), each as SimSystemCalls' generic audit would record it.
        byte[] name = Auditor.utf8("preadv2");
        java.lang.foreign.MemorySegment read = java.lang.foreign.Arena.ofAuto().allocate(4096 + 5);
        for (int i = 0; i < read.byteSize(); i++) {
            read.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
        }
        for (int result : new int[] {0, -11, 1, 9, 10, 99, 100, 4101, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            int moved = Math.max(0, Math.min(result, 4101));
            byte[] movedBytes = read.asSlice(0, moved).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            sameDigest(auditor -> auditor.recordPositionedRead(name, 7, 1L << 40, 4101, result, read, moved, null),
                    auditor -> auditor.record("sys", name, Auditor.u32(7), Auditor.u64(1L << 40), Auditor.u32(4101),
                            Auditor.u32(0), Auditor.utf8(String.valueOf(result)), movedBytes));
        }
        sameDigest(auditor -> auditor.recordPositionedRead(name, -1, 0, 0, -9, read, 0, null),
                auditor -> auditor.record("sys", name, Auditor.u32(-1), Auditor.u64(0), Auditor.u32(0),
                        Auditor.u32(0), Auditor.utf8("-9"), new byte[0]));
    }

    private static void sameDigest(Consumer<Auditor> fast, Consumer<Auditor> generic) {
        Auditor one = new Auditor();
        fast.accept(one);
        Auditor two = new Auditor();
        generic.accept(two);
        assertEquals(two.digest(), one.digest());
    }

    @Test
    void everyPayloadByteAndFieldCountsInTheDigest() {
        // A completion's payload of 20 KiB, longer than a chunk: flipping any one byte of it, anywhere (before, at
        // or after where the chunk ends), or any one bit of a numeric field, gives a digest of its own.
        int size = Auditor.CHUNK_BYTES + 4096;
        byte[] payload = new byte[size];
        new java.util.Random(7).nextBytes(payload);
        byte[] opcode = Auditor.utf8("WRITE");
        Set<String> digests = new HashSet<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(size);
            MemorySegment.copy(payload, 0, buffer, ValueLayout.JAVA_BYTE, 0, size);
            String original = completionDigest(opcode, buffer, size, 0);
            digests.add(original);
            for (int at = 0; at < size; at += 97) {
                byte was = buffer.get(ValueLayout.JAVA_BYTE, at);
                buffer.set(ValueLayout.JAVA_BYTE, at, (byte) (was ^ 0x01));
                assertTrue(digests.add(completionDigest(opcode, buffer, size, 0)), "flipping payload byte " + at);
                buffer.set(ValueLayout.JAVA_BYTE, at, was);
            }
            assertEquals(original, completionDigest(opcode, buffer, size, 0));
            for (int bit = 0; bit < Long.SIZE; bit++) {
                assertTrue(digests.add(completionDigest(opcode, buffer, size, 1L << bit)), "flipping bit " + bit);
            }
            assertTrue(digests.add(completionDigest(opcode, buffer, size - 1, 0)), "one byte fewer moved");
        }
    }

    @Test
    void aLongFieldIsHashedByBlocks() throws Exception {
        // A field of 2 blocks and 5 bytes, from record and from a completion's buffer: varint(len), the SHA-256 of
        // each whole block, then the 5 bytes as they are. The expected bytes are built here by hand.
        byte[] field = new byte[2 * Auditor.BLOCK_BYTES + 5];
        new java.util.Random(3).nextBytes(field);
        java.io.ByteArrayOutputStream encoded = new java.io.ByteArrayOutputStream();
        encoded.write(new byte[] {0, 1, 'k', 1});
        encoded.write(new byte[] {(byte) 0x85, 0x40}); // varint(8197)
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        encoded.write(sha.digest(java.util.Arrays.copyOfRange(field, 0, Auditor.BLOCK_BYTES)));
        encoded.write(sha.digest(java.util.Arrays.copyOfRange(field, Auditor.BLOCK_BYTES, 2 * Auditor.BLOCK_BYTES)));
        encoded.write(field, 2 * Auditor.BLOCK_BYTES, 5);
        sha.update(new byte[Auditor.DIGEST_BYTES]);
        String expected = java.util.HexFormat.of().formatHex(sha.digest(encoded.toByteArray()));
        Auditor auditor = new Auditor();
        auditor.record("k", field);
        assertEquals(expected, auditor.digest());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(field.length);
            MemorySegment.copy(field, 0, buffer, ValueLayout.JAVA_BYTE, 0, field.length);
            byte[] opcode = Auditor.utf8("READ");
            sameDigest(one -> one.recordRingComplete(1, 2, opcode, 3, field.length, 4, buffer, field.length, null),
                    two -> two.record("ring.complete", Auditor.u64(1), Auditor.u64(2), opcode, Auditor.u64(3),
                            Auditor.u32(field.length), Auditor.u64(4), field));
        }
    }

    @Test
    void aRememberedBlockDigestIsOnlyUsedForTheSameBytes() throws Exception {
        // Two blocks whose Arrays.hashCode agree (31 * b[0] + b[1] is 31 for both) and so share a remembered slot:
        // each must be hashed as itself, whichever came first and however often.
        byte[] one = new byte[Auditor.BLOCK_BYTES];
        one[1] = 31;
        byte[] other = new byte[Auditor.BLOCK_BYTES];
        other[0] = 1;
        assertEquals(java.util.Arrays.hashCode(one), java.util.Arrays.hashCode(other));
        List<byte[]> blocks = List.of(one, other, one, one.clone(), other);
        Auditor auditor = new Auditor();
        java.io.ByteArrayOutputStream encoded = new java.io.ByteArrayOutputStream();
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        for (byte[] block : blocks) {
            auditor.record("b", block);
            encoded.write(new byte[] {0, 1, 'b', 1, (byte) 0x80, 0x20}); // kind "b", one field, varint(4096)
            encoded.write(sha.digest(block));
        }
        sha.update(new byte[Auditor.DIGEST_BYTES]);
        assertEquals(java.util.HexFormat.of().formatHex(sha.digest(encoded.toByteArray())), auditor.digest());
    }

    @Test
    void aPayloadLookedUpByItsUnchangingArrayEncodesAsItsBytesDo() throws Exception {
        // A completion and a read at the call, each told the array their 4 KiB came from (a page the file system
        // keeps): the same digest as the same events without it, as a block is met first by its array, again by
        // the same array, then by its bytes alone, and as other blocks share the array's identity slot or the
        // bytes' set. Then the arrays are as they were: the table never took one of them for its own.
        java.util.Random random = new java.util.Random(11);
        List<byte[]> pages = new java.util.ArrayList<>();
        for (int i = 0; i < 3 * RememberedBlocks.SLOTS; i++) {
            byte[] page = new byte[Auditor.BLOCK_BYTES];
            random.nextBytes(page);
            pages.add(page);
        }
        List<byte[]> copies = pages.stream().map(byte[]::clone).toList();
        byte[] opcode = Auditor.utf8("READ");
        byte[] name = Auditor.utf8("preadv2");
        Auditor byArray = new Auditor();
        Auditor byBytes = new Auditor();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Auditor.BLOCK_BYTES);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < pages.size(); i++) {
                    byte[] page = pages.get((i * 7 + round) % pages.size());
                    MemorySegment.copy(page, 0, buffer, ValueLayout.JAVA_BYTE, 0, page.length);
                    byte[] told = round == 2 && i % 2 == 0 ? null : page;
                    byArray.recordRingComplete(1, i, opcode, i, page.length, i, buffer, page.length, told);
                    byBytes.recordRingComplete(1, i, opcode, i, page.length, i, buffer, page.length, null);
                    byArray.recordPositionedRead(name, 3, i, page.length, page.length, buffer, page.length, told);
                    byBytes.recordPositionedRead(name, 3, i, page.length, page.length, buffer, page.length, null);
                }
                assertEquals(byBytes.digest(), byArray.digest(), "round " + round);
            }
        }
        for (int i = 0; i < pages.size(); i++) {
            assertTrue(java.util.Arrays.equals(copies.get(i), pages.get(i)), "page " + i + " changed");
        }
    }

    /** The digest of one event before a completion, the completion, and one event after it. */
    private static String completionDigest(byte[] opcode, MemorySegment buffer, int moved, long userDataFlip) {
        Auditor auditor = new Auditor();
        auditor.recordU64U64(AuditKind.RING_NOW, 1, 1_000);
        auditor.recordRingComplete(1, 2, opcode, 0x55L ^ userDataFlip, moved, 1_000, buffer, moved, null);
        auditor.recordU64(AuditKind.FIBER_RUN, 0);
        return auditor.digest();
    }
}
