package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lockstep.demo.raft.Entry;
import dev.lockstep.demo.raft.RaftView;
import dev.lockstep.testing.ClusterNemesis;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * {@link RaftChecker#contest}: what the nemesis's ANSWERED_VOTE(S) strikes aim at. A contest is two running
 * candidates of one term and a running node that has not voted in it; anything less is none. Also: a double
 * leadership of one term is one violation, not two, of the checker's bounded list.
 */
class RaftCheckerContestTest {
    private record View(int id, RaftView.Role role, long term, int votedFor) implements RaftView {
        @Override
        public long commitIndex() {
            return 0;
        }

        @Override
        public List<Entry> log() {
            return List.of();
        }
    }

    private static final IntPredicate ALL_RUNNING = id -> true;

    private static RaftChecker checker(View... views) {
        RaftChecker checker = new RaftChecker(line -> { });
        for (View view : views) {
            checker.started(view, "test");
        }
        return checker;
    }

    private static View candidate(int id, long term) {
        return new View(id, RaftView.Role.CANDIDATE, term, id);
    }

    @Test
    void twoCandidatesOfOneTermAndAVoterThatHasNotVotedAreAContest() {
        RaftChecker olderVoter = checker(candidate(1, 4), candidate(2, 4), new View(3, RaftView.Role.FOLLOWER, 3, 1));
        assertEquals(new ClusterNemesis.Contest(1, 2, 3), olderVoter.contest(ALL_RUNNING));
        RaftChecker notVotedYet = checker(new View(1, RaftView.Role.FOLLOWER, 4, 0), candidate(2, 4), candidate(3, 4));
        assertEquals(new ClusterNemesis.Contest(2, 3, 1), notVotedYet.contest(ALL_RUNNING));
    }

    @Test
    void theContestOfTheHighestTermIsNamedWhateverTheIds() {
        // Term 4's candidates have the lower ids; term 6's contest is the live one, and a candidate of term 4 has
        // not voted in term 6.
        RaftChecker twoTerms = checker(candidate(1, 4), candidate(2, 4), candidate(3, 6), candidate(4, 6),
                new View(5, RaftView.Role.FOLLOWER, 3, 0));
        assertEquals(new ClusterNemesis.Contest(3, 4, 1), twoTerms.contest(ALL_RUNNING));
        assertEquals(new ClusterNemesis.Contest(1, 2, 5), twoTerms.contest(id -> id != 4),
                "with a candidate of term 6 down, term 4's contest is the one left");
    }

    @Test
    void noContestWithoutTwoRunningCandidatesOfOneTermAndAFreeVoter() {
        assertNull(checker().contest(ALL_RUNNING), "no node started");
        assertNull(checker(candidate(1, 4), new View(2, RaftView.Role.FOLLOWER, 3, 0),
                new View(3, RaftView.Role.FOLLOWER, 3, 0)).contest(ALL_RUNNING), "one candidate");
        assertNull(checker(candidate(1, 4), candidate(2, 5), new View(3, RaftView.Role.FOLLOWER, 3, 0))
                .contest(ALL_RUNNING), "candidates of different terms");
        assertNull(checker(candidate(1, 4), candidate(2, 4), new View(3, RaftView.Role.FOLLOWER, 4, 2))
                .contest(ALL_RUNNING), "the only other node already voted in that term");
        RaftChecker three = checker(candidate(1, 4), candidate(2, 4), new View(3, RaftView.Role.FOLLOWER, 3, 0));
        assertNull(three.contest(id -> id != 2), "a candidate is down");
        assertNull(three.contest(id -> id != 3), "the voter is down");
        assertNull(checker(candidate(1, 4), new View(2, RaftView.Role.LEADER, 4, 2),
                new View(3, RaftView.Role.FOLLOWER, 3, 0)).contest(ALL_RUNNING), "a leader is no candidate");
    }

    @Test
    void aDoubleLeadershipIsReportedOnceWhicheverCheckSeesItFirst() {
        RaftChecker electedFirst = checker(new View(1, RaftView.Role.LEADER, 5, 1),
                new View(2, RaftView.Role.LEADER, 5, 2));
        electedFirst.becameLeader(1, 5, List.of());
        electedFirst.becameLeader(2, 5, List.of());
        electedFirst.leader(ALL_RUNNING);
        assertEquals(List.of("Election Safety: nodes 1 and 2 both lead term 5"), electedFirst.violations());

        RaftChecker claimSeenFirst = checker(new View(1, RaftView.Role.LEADER, 5, 1),
                new View(2, RaftView.Role.LEADER, 5, 2));
        claimSeenFirst.becameLeader(1, 5, List.of());
        claimSeenFirst.leader(ALL_RUNNING);
        claimSeenFirst.becameLeader(2, 5, List.of());
        assertEquals(List.of("Election Safety: node 2 acts as the leader of term 5, which node 1 won"),
                claimSeenFirst.violations());
    }
}
