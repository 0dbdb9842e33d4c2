package dev.lockstep.sim.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.sim.SimRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The auditor's table of remembered 4 KiB blocks outlives a run: the next run, on any thread, finds the blocks its
 * predecessors hashed. What a user relies on: a sweep does not pay a block's SHA-256 once per seed, and no digest
 * depends on which runs came before or on which thread a run took its table from.
 */
class RememberedBlocksTest {

    private static byte[] block(int value) {
        byte[] block = new byte[Auditor.BLOCK_BYTES];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) (i * 31 + value);
        }
        return block;
    }

    @Test
    void aBlockHashedInOneRunIsRememberedInTheNextWithTheSameDigest() {
        byte[] payload = block(7);
        Auditor first = new Auditor();
        first.record("x", payload);
        first.record("x", payload);
        assertEquals(1, first.blocksHashed(), "a block recorded twice in one run is hashed once");
        first.releaseRememberedBlocks();

        Auditor second = new Auditor();
        second.record("x", payload);
        second.record("x", payload);
        assertEquals(0, second.blocksHashed(), "the next run on this thread takes the table back and finds the block");
        assertEquals(first.digest(), second.digest());

        // An auditor that hashes after giving its table back takes one again (it never writes to a given-back one).
        second.releaseRememberedBlocks();
        second.record("x", block(8));
        assertEquals(1, second.blocksHashed());
        second.releaseRememberedBlocks();
    }

    @Test
    void anUnchangingArrayIsHashedOnceAndItsBytesAreKnownByContentToo() throws Exception {
        // A page the file system keeps: its first lookup hashes it, the next ones find it by the array; an equal
        // array (the same bytes read into another page) is found by content, hashed no more. Each digest is the
        // SHA-256 of the bytes.
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        byte[] page = block(41);
        byte[] expected = sha.digest(page);
        RememberedBlocks table = RememberedBlocks.take();
        try {
            long before = table.hashed();
            for (int i = 0; i < 3; i++) {
                assertTrue(java.util.Arrays.equals(expected, table.digestOfUnchanging(page, sha)), "lookup " + i);
            }
            assertTrue(java.util.Arrays.equals(expected, table.digestOfUnchanging(page.clone(), sha)));
            System.arraycopy(page, 0, table.scratch(), 0, page.length);
            assertTrue(java.util.Arrays.equals(expected, table.digestOfScratch(sha)));
            assertTrue(table.hashed() - before <= 1, "hashed " + (table.hashed() - before) + " times");
            assertTrue(java.util.Arrays.equals(block(41), page), "the page was changed");
        } finally {
            table.giveBack();
        }
    }

    @Test
    void twoBlocksOfOneSetDoNotEvictEachOther() {
        // Two blocks of one set: a table of one slot per set would have them evict each other on every use.
        byte[] first = block(1);
        int set = RememberedBlocks.set(java.util.Arrays.hashCode(first));
        byte[] second = null;
        for (int value = 2; second == null; value++) {
            byte[] candidate = block(value);
            if (RememberedBlocks.set(java.util.Arrays.hashCode(candidate)) == set) {
                second = candidate;
            }
        }
        Auditor auditor = new Auditor();
        auditor.releaseRememberedBlocks(); // holds none yet; the next block takes a table
        long before = auditor.blocksHashed();
        for (int i = 0; i < 10; i++) {
            auditor.record("x", first);
            auditor.record("x", second);
        }
        // A table taken from an earlier run may hold either already; neither is hashed more than once.
        assertTrue(auditor.blocksHashed() - before <= 2, "hashed " + (auditor.blocksHashed() - before) + " times");
        auditor.releaseRememberedBlocks();
    }

    @Test
    void blocksThatDifferInOneByteAreAllRemembered() {
        // What a storage engine writes again and again: blocks alike but for a counter. Their hashes form an
        // arithmetic progression, which must not crowd into a few sets of the table.
        Auditor auditor = new Auditor();
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < 64; i++) {
                byte[] data = new byte[Auditor.BLOCK_BYTES];
                data[0] = (byte) i;
                auditor.record("x", data);
            }
        }
        assertTrue(auditor.blocksHashed() <= 64, "hashed " + auditor.blocksHashed() + " of 64 distinct blocks");
        auditor.releaseRememberedBlocks();
    }

    /** Four runs of 4 KiB writes and reads; the digest of each. */
    private static String run(long seed) {
        SimRunner runner = SimRunner.seeded(seed);
        runner.start(ctx -> {
            try (Blob blob = ctx.open("p", "b").await().blob()) {
                for (int i = 0; i < 24; i++) {
                    // Half the blocks are every run's, half this seed's own: tables meet both.
                    byte[] data = block(i % 2 == 0 ? i : (int) (seed * 100 + i));
                    blob.writeAt((long) i * data.length, data).await();
                    assertEquals(data.length, blob.readAt((long) i * data.length, data.length).await().length);
                }
            }
            return null;
        });
        return runner.digest();
    }

    @Test
    void digestsDoNotDependOnWhichRunsCameBeforeOrOnWhichThreadTheyRan() throws Exception {
        int seeds = 24;
        List<String> alone = new ArrayList<>();
        for (long seed = 0; seed < seeds; seed++) {
            alone.add(run(seed));
        }
        // The same seeds on four threads at once, in reverse order: tables pass between threads and runs.
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> together = new ArrayList<>();
            for (long seed = seeds - 1; seed >= 0; seed--) {
                long s = seed;
                together.add(0, pool.submit(() -> run(s)));
            }
            for (int seed = 0; seed < seeds; seed++) {
                assertEquals(alone.get(seed), together.get(seed).get(), "seed " + seed);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
