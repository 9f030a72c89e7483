package io.reactivecollectives.dashboard;

import io.reactivecollectives.core.observe.FlightRecorderDump;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RankStatesTest {

    private static FlightRecorderDump.Entry started(long seq) {
        return new FlightRecorderDump.Entry(seq, seq, "allReduce", "float32", null, null, 4, 4, "ring", "STARTED", 1L, 2L,
                null, null, null, null, null);
    }

    @Test
    void lastSeqIsTheCounterBeforeTheSnapshotWhenNothingBeganSince() {
        // seq 9 begun after the snapshot (the counter read after it says 9): in no list, so not lastSeq
        assertEquals(8, RankStates.lastSeq(8, 9, List.of(started(7), started(8))));
    }

    @Test
    void lastSeqIsNeverBehindACollectiveTheSnapshotHolds() {
        // seq 9 began between the counter's first reading and the snapshot
        assertEquals(9, RankStates.lastSeq(8, 10, List.of(started(8), started(9))));
    }

    @Test
    void numbersPastTheCounterAreNotTheGroupsCollectives() {
        assertEquals(8, RankStates.lastSeq(8, 8, List.of(started(8), started(1_000))));
    }
}
