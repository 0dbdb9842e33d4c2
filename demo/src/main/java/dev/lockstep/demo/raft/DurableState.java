package dev.lockstep.demo.raft;

import dev.lockstep.Blob;
import dev.lockstep.Context;
import dev.lockstep.OpenedBlob;
import dev.lockstep.demo.kv.InjectedBug;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What a Raft node keeps on disk, and its in-memory copy: the current term and vote (blob {@code raft/meta}) and the
 * log (blob {@code raft/log}). The in-memory copy is what the node decides from; the writes here are not durable
 * until the matching sync ({@link #syncMeta}, {@link #syncLog}) returns, and the node answers nothing that depends
 * on them before that.
 *
 * <h2>Format</h2>
 * {@code meta}: one 24-byte record {@code [term u64][votedFor u64][crc32c u32][0 u32]} at offset 0, written in
 * place: it lies in the first 512-byte sector, which a crash keeps or loses whole. {@code log}: entry {@code i}
 * (from 1) is the 24-byte record {@code [term u64][command u64][crc32c u32][0 u32]} at {@code (i - 1) * 24}, its
 * checksum covering the index as well, so a record left at another place does not pass. Recovery keeps the longest
 * prefix of valid records and cuts the rest off (a torn or lost write of an unsynced entry), then syncs the cut.
 *
 * <p>Not thread-safe: the node calls it with its lock held.
 */
final class DurableState implements AutoCloseable {
    static final int RECORD = 24;

    private final InjectedBug bug;
    private final Blob meta;
    private final Blob log;
    private final List<Entry> entries = new ArrayList<>();
    private long term;
    private int votedFor;
    private String recovery = "";

    private DurableState(InjectedBug bug, Blob meta, Blob log) {
        this.bug = bug;
        this.meta = meta;
        this.log = log;
    }

    /**
     * Opens and recovers the node's state.
     *
     * @param ctx the node's context
     * @param bug the injected bug ({@link InjectedBug#RECOVERY_REWRITES_LOG} changes recovery)
     * @return the state
     * @throws IllegalStateException naming the record if the meta record is corrupt (a synced one never is)
     */
    static DurableState open(Context ctx, InjectedBug bug) {
        OpenedBlob openedMeta = ctx.open("raft", "meta").await();
        Blob meta = openedMeta.blob();
        try {
            OpenedBlob openedLog = ctx.open("raft", "log").await();
            Blob log = openedLog.blob();
            try {
                DurableState state = new DurableState(bug, meta, log);
                state.recovery = state.recover(openedMeta.length(), openedLog.length());
                return state;
            } catch (RuntimeException failed) {
                log.close();
                throw failed;
            }
        } catch (RuntimeException failed) {
            meta.close();
            throw failed;
        }
    }

    private String recover(long metaLength, long logLength) {
        if (metaLength >= RECORD) {
            ByteBuffer record = ByteBuffer.wrap(meta.readAt(0, RECORD).await());
            long savedTerm = record.getLong();
            long savedVote = record.getLong();
            int crc = record.getInt();
            if (crc != checksum(savedTerm, savedVote, -1)) {
                throw new IllegalStateException("raft/meta record (term " + savedTerm + ", vote " + savedVote
                        + ") fails its checksum");
            }
            term = savedTerm;
            votedFor = bug == InjectedBug.FORGET_VOTE_ON_REBOOT ? 0 : (int) savedVote;
        }
        long records = logLength / RECORD;
        byte[] bytes = records == 0 ? new byte[0] : log.readAt(0, Math.toIntExact(records * RECORD)).await();
        ByteBuffer in = ByteBuffer.wrap(bytes);
        for (long index = 1; index <= records; index++) {
            long entryTerm = in.getLong();
            long command = in.getLong();
            int crc = in.getInt();
            in.getInt();
            if (entryTerm < 1 || crc != checksum(entryTerm, command, index)) {
                break;
            }
            entries.add(new Entry(entryTerm, command));
        }
        long kept = (long) entries.size() * RECORD;
        if (bug == InjectedBug.RECOVERY_REWRITES_LOG) {
            // The bug: the log is rewritten from scratch, truncation first; until the sync, a crash may keep the
            // truncation and lose the rewrite.
            log.resize(0).await();
            if (!entries.isEmpty()) {
                writeEntries(1, entries);
            }
            log.sync().await();
        } else if (kept != logLength) {
            log.resize(kept).await();
            log.sync().await();
        }
        return "term " + term + ", vote " + votedFor + ", " + entries.size() + " entries"
                + (kept != logLength ? " (cut " + (logLength - kept) + " bytes of a torn or lost tail)" : "");
    }

    /** What recovery found, for traces. */
    String recovery() {
        return recovery;
    }

    long term() {
        return term;
    }

    int votedFor() {
        return votedFor;
    }

    long lastIndex() {
        return entries.size();
    }

    /** The term of entry {@code index}, 0 for index 0 (before the log). */
    long termAt(long index) {
        return index == 0 ? 0 : entries.get(Math.toIntExact(index - 1)).term();
    }

    Entry entry(long index) {
        return entries.get(Math.toIntExact(index - 1));
    }

    /** Entries {@code from} to {@code from + count - 1}, a copy. */
    List<Entry> entries(long from, int count) {
        return List.copyOf(entries.subList(Math.toIntExact(from - 1), Math.toIntExact(from - 1 + count)));
    }

    /** Writes a new term and vote; durable once {@link #syncMeta} returns. */
    void saveTermAndVote(long newTerm, int vote) {
        term = newTerm;
        votedFor = vote;
        long savedVote = bug == InjectedBug.FORGET_VOTE_ON_REBOOT ? 0 : vote;
        meta.writeAt(0, ByteBuffer.allocate(RECORD).putLong(newTerm).putLong(savedVote)
                .putInt(checksum(newTerm, savedVote, -1)).putInt(0).array()).await();
    }

    void syncMeta() {
        meta.sync().await();
    }

    /** Removes entries {@code from} and after; durable once {@link #syncLog} returns. */
    void truncateFrom(long from) {
        entries.subList(Math.toIntExact(from - 1), entries.size()).clear();
        log.resize((from - 1) * RECORD).await();
    }

    /** Appends after the last entry; durable once {@link #syncLog} returns. */
    void append(List<Entry> more) {
        long from = entries.size() + 1;
        entries.addAll(more);
        writeEntries(from, more);
    }

    void syncLog() {
        log.sync().await();
    }

    private void writeEntries(long from, List<Entry> more) {
        ByteBuffer out = ByteBuffer.allocate(more.size() * RECORD);
        long index = from;
        for (Entry entry : more) {
            out.putLong(entry.term()).putLong(entry.command()).putInt(checksum(entry.term(), entry.command(), index))
                    .putInt(0);
            index++;
        }
        log.writeAt((from - 1) * RECORD, out.array()).await();
    }

    private static int checksum(long first, long second, long index) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(24).putLong(first).putLong(second).putLong(index).array());
        return (int) crc.getValue();
    }

    @Override
    public void close() {
        try {
            log.close();
        } finally {
            meta.close();
        }
    }
}
