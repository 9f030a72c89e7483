package io.reactivecollectives.dashboard;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.transport.GroupView;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The job page's data: this rank's state read in-process, every other rank's read from its endpoint
 * (whose address it published in the group's store), side by side, with {@link Stragglers}. One
 * reading serves every client for {@link #FRESH}; a rank that does not answer within
 * {@link #RANK_TIMEOUT} is shown as unreachable with the reason, and the others still are.
 */
final class JobStates {

    static final Duration FRESH = Duration.ofMillis(250);
    static final Duration RANK_TIMEOUT = Duration.ofMillis(1500);
    /** How long the first reading waits for a rank's address to appear in the store. */
    static final Duration ADDRESS_WAIT = Duration.ofSeconds(2);
    private static final int FAN_OUT = 32;

    private final GroupView view;
    private final RankStates local;
    private final HttpClient client;
    private final AtomicReferenceArray<String> addresses;
    private Mono<JobState> current;
    private long currentNanos;

    JobStates(GroupView view, RankStates local, HttpClient client) {
        this.view = view;
        this.local = local;
        this.addresses = new AtomicReferenceArray<>(view.size());
        String secret = view.secret();
        this.client = secret == null ? client
                : client.headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + secret));
    }

    /** The store key under which rank {@code rank} of this job publishes its endpoint's address. */
    static String key(GroupView view, int rank) {
        return "rc/" + view.groupId() + "/" + view.job() + "/dashboard/" + rank;
    }

    /** {@return the job's state: read now, or shared with a reading younger than {@link #FRESH}} */
    synchronized Mono<JobState> read() {
        long now = System.nanoTime();
        if (current == null || now - currentNanos >= FRESH.toNanos()) {
            current = fetch().cache();
            currentNanos = now;
        }
        return current;
    }

    private Mono<JobState> fetch() {
        return Flux.range(0, view.size())
                .flatMap(r -> r == view.rank() ? Mono.fromSupplier(local::read) : remote(r), FAN_OUT)
                .collectSortedList(Comparator.comparingInt(RankState::rank))
                .map(this::job);
    }

    private JobState job(List<RankState> ranks) {
        Stragglers s = Stragglers.of(ranks, Stragglers.DEFAULT_MIN_WAIT_MS);
        return new JobState(view.groupId(), view.job(), view.size(), view.generation(),
                TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()), s.banner(), s.stragglers(), ranks);
    }

    private Mono<RankState> remote(int rank) {
        return get(rank, "/api/rank")
                .map(json -> Json.read(json, RankState.class))
                .onErrorResume(e -> Mono.just(RankState.unreachable(rank, reason(e))));
    }

    /** Every rank's flight recorder (a rank that does not answer is left out). */
    Mono<List<FlightRecorderDump>> recorders() {
        return Flux.range(0, view.size())
                .flatMap(r -> r == view.rank() ? Mono.fromSupplier(() -> view.flightRecorder().snapshot("dashboard"))
                        : get(r, "/api/flight-recorder").flatMap(JobStates::dump).onErrorResume(e -> Mono.empty()), FAN_OUT)
                .collectSortedList(Comparator.comparingInt(FlightRecorderDump::rank));
    }

    private static Mono<FlightRecorderDump> dump(String json) {
        try {
            return Mono.just(FlightRecorder.fromJson(json));
        } catch (IOException e) {
            return Mono.error(e);
        }
    }

    private Mono<String> get(int rank, String path) {
        return address(rank).flatMap(base -> client.get().uri(base + path)
                .responseSingle((res, body) -> res.status().code() == 200 ? body.asString(StandardCharsets.UTF_8)
                        : Mono.error(new IllegalStateException("its endpoint answered " + res.status())))
                .timeout(RANK_TIMEOUT, Mono.error(() -> new IllegalStateException("no answer within "
                        + RANK_TIMEOUT.toMillis() + " ms"))));
    }

    /** The rank's published address: from the store on first use, then remembered. */
    private Mono<String> address(int rank) {
        String known = addresses.get(rank);
        if (known != null) {
            return Mono.just(known);
        }
        return DashboardServer.address(view, rank, ADDRESS_WAIT)
                .doOnNext(a -> addresses.set(rank, a))
                .onErrorMap(e -> new IllegalStateException("no dashboard address published ("
                        + e.getClass().getSimpleName() + ")", e));
    }

    /**
     * Why a rank did not answer, in a few words: {@code connection refused}, {@code connection reset},
     * {@code cannot connect}, or this class's own reasons ({@code no answer within 1500 ms}); never
     * Netty's wording ({@code finishConnect(..) failed with error(-111): ...}).
     */
    static String reason(Throwable e) {
        if (e instanceof IllegalStateException && e.getMessage() != null) {
            return e.getMessage();   // this class's own
        }
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
            if (t instanceof java.net.ConnectException) {
                return m.contains("refused") ? "connection refused" : m.contains("timed out") ? "connect timed out"
                        : "cannot connect";
            }
            if (t instanceof java.net.UnknownHostException) {
                return "unknown host";
            }
            if (t instanceof IOException) {
                return m.contains("reset") ? "connection reset" : "the connection closed before an answer";
            }
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
