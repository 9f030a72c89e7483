package io.reactivecollectives.dashboard;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * One rank as its endpoint serves it ({@code GET /api/rank}) and as the job page shows it: what it
 * runs now, what it finished last, what it moved to and from each peer. Never tensor contents.
 *
 * @param rank           the rank
 * @param reachable      false when the job page could not read this rank (then only {@code error} is set)
 * @param error          why it could not be read, or null
 * @param group          the group's name
 * @param job            the job the ranks agreed on
 * @param size           the group's size
 * @param generation     the group's generation
 * @param host           the host the rank runs on
 * @param pid            its process id
 * @param nowUs          when this state was read, epoch microseconds
 * @param lastSeq        the latest collective this rank started (-1 for none)
 * @param inFlight       what runs now
 * @param finished       the last collectives finished, oldest first
 * @param bytesSent      payload bytes sent ({@code rc.bytes.sent})
 * @param bytesReceived  payload bytes received ({@code rc.bytes.received})
 * @param sentPerSec     bytes per second sent over the last second or so
 * @param receivedPerSec bytes per second received over the last second or so
 * @param peers          what this rank knows of each other rank
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RankState(int rank, boolean reachable, String error, String group, String job, Integer size,
                        Integer generation, String host, Long pid, Long nowUs, Long lastSeq, List<Running> inFlight,
                        List<Finished> finished, Double bytesSent, Double bytesReceived, Double sentPerSec,
                        Double receivedPerSec, List<PeerState> peers) {

    /**
     * The state of a rank that could not be read, as of now (the others' waits are counted up to
     * this moment).
     *
     * @param rank  the rank
     * @param error why
     * @return the state
     */
    public static RankState unreachable(int rank, String error) {
        return unreachable(rank, error, java.util.concurrent.TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()));
    }

    /**
     * The state of a rank that could not be read, as of {@code nowUs}.
     *
     * @param rank  the rank
     * @param error why
     * @param nowUs when, epoch microseconds
     * @return the state
     */
    public static RankState unreachable(int rank, String error, long nowUs) {
        return new RankState(rank, false, error, null, null, null, null, null, null, nowUs, null, null, null, null,
                null, null, null, null);
    }

    /** {@return what runs now, never null} */
    public List<Running> running() {
        return inFlight == null ? List.of() : inFlight;
    }

    /**
     * A collective or receive in flight.
     *
     * @param op         the operation
     * @param seq        its sequence number (-1 for a point-to-point receive)
     * @param bytes      its input's bytes
     * @param algorithm  its algorithm, or null
     * @param state      {@code SCHEDULED} or {@code STARTED}
     * @param ageMs      milliseconds since it was asked for
     * @param timeoutMs  its timeout in milliseconds, 0 when unknown
     * @param waitingFor the ranks it waits for now
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Running(String op, long seq, long bytes, String algorithm, String state, double ageMs,
                          double timeoutMs, List<Integer> waitingFor) {
    }

    /**
     * A collective that finished.
     *
     * @param op        the operation
     * @param seq       its sequence number
     * @param bytes     its input's bytes
     * @param algorithm its algorithm
     * @param state     {@code COMPLETED} or {@code FAILED}
     * @param startUs   when it started, epoch microseconds
     * @param endUs     when it ended, epoch microseconds
     * @param ms        how long it took
     * @param error     its error, or null
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Finished(String op, long seq, long bytes, String algorithm, String state, long startUs, long endUs,
                           double ms, String error) {
    }

    /**
     * One peer as this rank sees it.
     *
     * @param rank           the peer
     * @param transport      {@code shm}, {@code unix}, {@code tcp} or {@code none}
     * @param alive          false once declared dead
     * @param death          why it was declared dead, or null
     * @param lastSeqHeard   the latest collective it sent data for, -1 for none
     * @param bytesSent      payload bytes sent to it
     * @param bytesReceived  payload bytes received from it
     * @param sentPerSec     bytes per second sent to it lately
     * @param receivedPerSec bytes per second received from it lately
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PeerState(int rank, String transport, boolean alive, String death, long lastSeqHeard,
                            double bytesSent, double bytesReceived, double sentPerSec, double receivedPerSec) {
    }
}
