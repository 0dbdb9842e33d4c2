package dev.lockstep.demo.raft;

import dev.lockstep.Connection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire format: every message is a frame {@code [length u32][type u8][fields]}, {@code length} counting the type
 * and the fields, numbers big-endian. Peers keep one connection per direction and send a request, then wait for its
 * reply; a client may send any number of requests on one connection, one at a time.
 *
 * <pre>
 * 'V' RequestVote     term u64, candidate u32, lastLogIndex u64, lastLogTerm u64
 * 'v' VoteReply       term u64, granted u8
 * 'A' AppendEntries   term u64, leader u32, prevLogIndex u64, prevLogTerm u64, leaderCommit u64, count u32,
 *                     count x (term u64, command u64)
 * 'a' AppendReply     term u64, success u8, index u64 (the last index matched; on a refusal, the follower's last
 *                     index, a hint for the leader)
 * 'C' ClientAppend    command u64
 * 'R' ClientRead      index u64
 * 'I' ClientCommitIndex
 * 'c' ClientReply     status u8, value u64, leaderHint u32 (0: unknown)
 * </pre>
 * Anything else (a length past {@link #MAX_FRAME}, an unknown type, fields that do not fill the frame exactly) is
 * refused with {@link MalformedMessageException} before anything is allocated for it beyond the frame itself.
 */
final class Messages {
    /** The largest frame: a full batch of entries fits with room to spare. */
    static final int MAX_FRAME = 64 * 1024;
    /** The most entries one AppendEntries carries. */
    static final int MAX_ENTRIES = (MAX_FRAME - 64) / 16;

    private Messages() {
    }

    /** A message of the protocol. */
    sealed interface Message permits RequestVote, VoteReply, AppendEntries, AppendReply, ClientAppend, ClientRead,
            ClientCommitIndex, ClientReply {
    }

    record RequestVote(long term, int candidate, long lastLogIndex, long lastLogTerm) implements Message {
    }

    record VoteReply(long term, boolean granted) implements Message {
    }

    record AppendEntries(long term, int leader, long prevLogIndex, long prevLogTerm, long leaderCommit,
                         List<Entry> entries) implements Message {
    }

    record AppendReply(long term, boolean success, long index) implements Message {
    }

    record ClientAppend(long command) implements Message {
    }

    record ClientRead(long index) implements Message {
    }

    record ClientCommitIndex() implements Message {
    }

    /** What a node answers a client: a status, a value (an index or a command) and who it thinks leads. */
    record ClientReply(Status status, long value, int leaderHint) implements Message {
    }

    /** A client reply's status. */
    enum Status {
        /** Done: {@code value} is the index, the command or the commit index asked for. */
        OK,
        /** This node does not lead; {@code leaderHint} names the node it last heard from as leader, or 0. */
        NOT_LEADER,
        /** The command was taken but leadership was lost before it committed: it may or may not commit. */
        UNKNOWN,
        /** The index asked for is not committed (yet) on the leader. */
        NOT_COMMITTED
    }

    /**
     * Sends one message as a frame.
     *
     * @param connection where to
     * @param message what
     */
    static void send(Connection connection, Message message) {
        connection.sink().send(encode(message)).await();
    }

    /**
     * Receives one frame and decodes it.
     *
     * @param connection where from
     * @return the message
     * @throws MalformedMessageException naming what is wrong with it
     */
    static Message receive(Connection connection) {
        int length = ByteBuffer.wrap(connection.stream().recv(Integer.BYTES).await()).getInt();
        if (length < 1 || length > MAX_FRAME) {
            throw new MalformedMessageException("frame length " + length + " is not in [1, " + MAX_FRAME + "]");
        }
        return decode(ByteBuffer.wrap(connection.stream().recv(length).await()));
    }

    static byte[] encode(Message message) {
        ByteBuffer out = switch (message) {
            case RequestVote m -> frame('V', 28).putLong(m.term()).putInt(m.candidate()).putLong(m.lastLogIndex())
                    .putLong(m.lastLogTerm());
            case VoteReply m -> frame('v', 9).putLong(m.term()).put((byte) (m.granted() ? 1 : 0));
            case AppendEntries m -> {
                ByteBuffer buffer = frame('A', 40 + 16 * m.entries().size()).putLong(m.term()).putInt(m.leader())
                        .putLong(m.prevLogIndex()).putLong(m.prevLogTerm()).putLong(m.leaderCommit())
                        .putInt(m.entries().size());
                for (Entry entry : m.entries()) {
                    buffer.putLong(entry.term()).putLong(entry.command());
                }
                yield buffer;
            }
            case AppendReply m -> frame('a', 17).putLong(m.term()).put((byte) (m.success() ? 1 : 0))
                    .putLong(m.index());
            case ClientAppend m -> frame('C', 8).putLong(m.command());
            case ClientRead m -> frame('R', 8).putLong(m.index());
            case ClientCommitIndex m -> frame('I', 0);
            case ClientReply m -> frame('c', 13).put((byte) m.status().ordinal()).putLong(m.value())
                    .putInt(m.leaderHint());
        };
        return out.array();
    }

    private static ByteBuffer frame(char type, int fields) {
        return ByteBuffer.allocate(Integer.BYTES + 1 + fields).putInt(1 + fields).put((byte) type);
    }

    static Message decode(ByteBuffer in) {
        char type = (char) in.get();
        Message message = switch (type) {
            case 'V' -> {
                expect(in, type, 28);
                yield new RequestVote(in.getLong(), in.getInt(), in.getLong(), in.getLong());
            }
            case 'v' -> {
                expect(in, type, 9);
                yield new VoteReply(in.getLong(), flag(in.get(), type));
            }
            case 'A' -> {
                if (in.remaining() < 40) {
                    throw new MalformedMessageException("AppendEntries of " + in.remaining() + " bytes, shorter than"
                            + " its 40 bytes of fields");
                }
                long term = in.getLong();
                int leader = in.getInt();
                long prevLogIndex = in.getLong();
                long prevLogTerm = in.getLong();
                long leaderCommit = in.getLong();
                int count = in.getInt();
                if (count < 0 || count > MAX_ENTRIES || in.remaining() != 16 * count) {
                    throw new MalformedMessageException("AppendEntries entry count " + count + " does not match its "
                            + in.remaining() + " bytes of entries");
                }
                List<Entry> entries = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    long entryTerm = in.getLong();
                    if (entryTerm < 1) {
                        throw new MalformedMessageException("AppendEntries entry term " + entryTerm + " is below 1");
                    }
                    entries.add(new Entry(entryTerm, in.getLong()));
                }
                yield new AppendEntries(term, leader, prevLogIndex, prevLogTerm, leaderCommit, entries);
            }
            case 'a' -> {
                expect(in, type, 17);
                yield new AppendReply(in.getLong(), flag(in.get(), type), in.getLong());
            }
            case 'C' -> {
                expect(in, type, 8);
                yield new ClientAppend(in.getLong());
            }
            case 'R' -> {
                expect(in, type, 8);
                yield new ClientRead(in.getLong());
            }
            case 'I' -> {
                expect(in, type, 0);
                yield new ClientCommitIndex();
            }
            case 'c' -> {
                expect(in, type, 13);
                int status = in.get();
                if (status < 0 || status >= Status.values().length) {
                    throw new MalformedMessageException("client reply status " + status + " is unknown");
                }
                yield new ClientReply(Status.values()[status], in.getLong(), in.getInt());
            }
            default -> throw new MalformedMessageException("message type " + (int) type + " is unknown");
        };
        return message;
    }

    private static void expect(ByteBuffer in, char type, int fields) {
        if (in.remaining() != fields) {
            throw new MalformedMessageException("message '" + type + "' has " + in.remaining() + " bytes of fields,"
                    + " not " + fields);
        }
    }

    private static boolean flag(byte value, char type) {
        if (value != 0 && value != 1) {
            throw new MalformedMessageException("message '" + type + "' flag " + value + " is neither 0 nor 1");
        }
        return value == 1;
    }
}
