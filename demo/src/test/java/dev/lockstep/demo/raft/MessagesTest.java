package dev.lockstep.demo.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.demo.raft.Messages.Message;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wire format round-trips every message, and refuses what a peer might send wrong, naming the bad value. */
class MessagesTest {
    @Test
    void everyMessageRoundTrips() {
        List<Message> messages = List.of(new Messages.RequestVote(7, 2, 40, 6), new Messages.VoteReply(7, true),
                new Messages.AppendEntries(7, 1, 3, 5, 2, List.of(new Entry(5, -1), new Entry(7, Long.MAX_VALUE))),
                new Messages.AppendEntries(8, 3, 0, 0, 0, List.of()), new Messages.AppendReply(7, false, 12),
                new Messages.ClientAppend(42), new Messages.ClientRead(9), new Messages.ClientCommitIndex(),
                new Messages.ClientReply(Messages.Status.NOT_LEADER, 0, 3));
        for (Message message : messages) {
            byte[] frame = Messages.encode(message);
            ByteBuffer in = ByteBuffer.wrap(frame);
            assertEquals(frame.length - Integer.BYTES, in.getInt(), "the length counts the type and the fields");
            assertEquals(message, Messages.decode(in));
        }
    }

    @Test
    void malformedMessagesAreRefusedNamingTheBadValue() {
        assertRefused(new byte[] {'Z', 1, 2}, "message type 90 is unknown");
        assertRefused(new byte[] {'v', 0, 0, 0, 0, 0, 0, 0, 1, 2}, "flag 2 is neither 0 nor 1");
        assertRefused(new byte[] {'C', 1, 2, 3}, "message 'C' has 3 bytes of fields, not 8");
        byte[] append = Messages.encode(new Messages.AppendEntries(1, 1, 0, 0, 0, List.of(new Entry(1, 1))));
        byte[] cut = Arrays.copyOfRange(append, Integer.BYTES, append.length - 8);
        assertRefused(cut, "AppendEntries entry count 1 does not match its 8 bytes of entries");
        byte[] zeroTerm = Arrays.copyOfRange(append, Integer.BYTES, append.length);
        ByteBuffer.wrap(zeroTerm).putLong(41, 0);
        assertRefused(zeroTerm, "AppendEntries entry term 0 is below 1");
        assertRefused(new byte[] {'c', 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "client reply status 9 is unknown");
    }

    @Test
    void aBadConfigurationIsRefusedNamingTheValue() {
        List<InetSocketAddress> members = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 2));
        IllegalArgumentException self = assertThrows(IllegalArgumentException.class,
                () -> RaftConfig.of(3, members));
        assertTrue(self.getMessage().contains("self must be a member id in [1, 2], was 3"), self.getMessage());
        IllegalArgumentException timing = assertThrows(IllegalArgumentException.class,
                () -> RaftConfig.of(1, members).withTiming(Duration.ofMillis(50), Duration.ofMillis(40),
                        Duration.ofMillis(80), Duration.ofMillis(10)));
        assertTrue(timing.getMessage().contains("electionTimeoutMin PT0.04S must exceed heartbeat PT0.05S"),
                timing.getMessage());
        IllegalArgumentException bug = assertThrows(IllegalArgumentException.class,
                () -> RaftConfig.of(1, members).withBug(InjectedBug.ACK_BEFORE_SYNC));
        assertTrue(bug.getMessage().contains("bug ack-before-sync is not a Raft bug"), bug.getMessage());
    }

    private static void assertRefused(byte[] body, String expected) {
        MalformedMessageException refused = assertThrows(MalformedMessageException.class,
                () -> Messages.decode(ByteBuffer.wrap(body)));
        assertTrue(refused.getMessage().contains(expected), refused.getMessage());
    }
}
