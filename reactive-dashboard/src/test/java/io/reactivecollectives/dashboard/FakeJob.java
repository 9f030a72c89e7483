package io.reactivecollectives.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A made-up {@code GET /api/job} for the page's browser test: a 4-rank job whose rank 3 is
 * unreachable, rank 1 has lost its peer 3, and rank 2 says almost nothing (fields missing). At
 * first all is well; once {@link #stall()} was called and at least {@link #QUIET_POLLS} polls were
 * answered, ranks 0 to 2 wait in allReduce seq 12 for rank 3, which the banner and the stragglers
 * name. Built on a Netty thread per request: CPU work only.
 */
final class FakeJob {

    /** The banner once rank 3 is behind, as the server words it. */
    static final String BANNER = "rank 3 has not started allReduce seq 12; the others waited 1.2 s";

    /** Polls answered without a banner, at least. */
    static final int QUIET_POLLS = 3;

    private static final long FINISHED = 11;
    private static final long SPACING_US = 400_000;
    private static final long DURATION_US = 150_000;

    private final ObjectMapper json = new ObjectMapper();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicBoolean stallAllowed = new AtomicBoolean();
    private final AtomicLong stalledAtUs = new AtomicLong();

    /** Lets rank 3 fall behind once {@link #QUIET_POLLS} polls were answered. */
    void stall() {
        stallAllowed.set(true);
    }

    /**
     * How many times the page asked.
     *
     * @return the polls answered so far
     */
    int polls() {
        return polls.get();
    }

    /**
     * The job's JSON now.
     *
     * @return {@code /api/job}'s body
     */
    String next() {
        int poll = polls.incrementAndGet();
        long nowUs = System.currentTimeMillis() * 1000;
        boolean stalled = stallAllowed.get() && poll > QUIET_POLLS;
        if (stalled) {
            stalledAtUs.compareAndSet(0, nowUs);
        }
        ObjectNode job = json.createObjectNode().put("group", "default").put("job", "20261129-0130-ab12")
                .put("size", 4).put("generation", 0).put("nowUs", nowUs);
        if (stalled) {
            job.put("banner", BANNER);
            job.putArray("stragglers").add(3);
        } else {
            job.putNull("banner");
            job.putArray("stragglers");
        }
        ArrayNode ranks = job.putArray("ranks");
        for (int rank = 0; rank < 2; rank++) {
            ranks.add(rank(rank, poll, nowUs, stalled));
        }
        ranks.addObject().put("rank", 2).put("reachable", true).put("host", "node-b");   // little else
        ranks.addObject().put("rank", 3).put("reachable", false).put("error", "connection refused");
        return job.toString();
    }

    private ObjectNode rank(int rank, int poll, long nowUs, boolean stalled) {
        double wave = 1 + 0.4 * Math.sin(poll / 2.0 + rank);
        ObjectNode node = json.createObjectNode().put("rank", rank).put("reachable", true).putNull("error")
                .put("host", "node-a").put("pid", 4100 + rank).put("lastSeq", FINISHED)
                .put("bytesSent", 123_456L * poll).put("bytesReceived", 456_789L * poll)
                .put("sentPerSec", (rank + 1) * 1.2e6 * wave).put("receivedPerSec", (rank + 1) * 1.1e6 * wave);
        ArrayNode inFlight = node.putArray("inFlight");
        if (stalled) {
            inFlight.addObject().put("op", "allReduce").put("seq", FINISHED + 1).put("bytes", 4)
                    .put("algorithm", "ring").put("state", "STARTED")
                    .put("ageMs", (nowUs - stalledAtUs.get()) / 1000.0 + 1200).put("timeoutMs", 300_000)
                    .putArray("waitingFor").add(3);
        }
        ArrayNode finished = node.putArray("finished");
        // a running job keeps finishing collectives until it stalls: the last ones end just before now
        // (or before the stall), so they stay in the page's 10 s timeline however slowly the test runs
        long lastUs = stalled ? stalledAtUs.get() : nowUs;
        long firstUs = lastUs - FINISHED * SPACING_US;
        for (long seq = 1; seq <= FINISHED; seq++) {
            long beginUs = firstUs + (seq - 1) * SPACING_US;
            boolean failed = rank == 1 && seq == 7;
            finished.addObject().put("op", seq % 3 == 0 ? "broadcast" : "allReduce").put("seq", seq)
                    .put("bytes", 1 << 20).put("algorithm", "ring").put("state", failed ? "FAILED" : "COMPLETED")
                    .put("startUs", beginUs).put("endUs", beginUs + DURATION_US).put("ms", DURATION_US / 1000.0)
                    .put("error", failed ? "peer 3 closed the connection" : null);
        }
        ArrayNode peers = node.putArray("peers");
        for (int peer = 0; peer < 4; peer++) {
            if (peer == rank) {
                continue;
            }
            boolean dead = rank == 1 && peer == 3;
            peers.addObject().put("rank", peer).put("transport", peer == 3 ? "tcp" : "shm").put("alive", !dead)
                    .put("death", dead ? "connection reset by peer" : null).put("lastSeqHeard", FINISHED)
                    .put("bytesSent", 1000).put("bytesReceived", 2000).put("sentPerSec", 0).put("receivedPerSec", 0);
        }
        return node;
    }
}
