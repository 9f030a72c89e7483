package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import reactor.core.Disposable;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.JobEndedException;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Joins through the store: a process asks to join a running group, and the group's rank 0 answers
 * every pending request at once, at a boundary its members agreed on (they broadcast the newest
 * ticket number, see {@code ElasticGroup}), so that every member and every joiner adopt the same
 * next generation.
 *
 * <h2>Protocol</h2>
 * For the group {@code base} (its id without the generation suffix), in the job's root store:
 * <ol>
 *   <li>A joiner takes a ticket {@code t} with {@code add(rc/<base>/join/tickets, 1)} and writes
 *   its request ({@code identity}, {@code fingerprint}) under {@code rc/<base>/join/request/<t>},
 *   then waits for {@code rc/<base>/join/answer/<t>}.</li>
 *   <li>At a boundary, rank 0 reads the ticket counter; the members learn it by broadcast. When it
 *   passed the last ticket they answered, rank 0 reads each new request in ticket order. A request
 *   whose fingerprint differs from the members' is refused (its answer says why); one whose request
 *   never arrives within two seconds counts as abandoned; the others are admitted, each with the
 *   identity it asked for when no member or earlier joiner holds it, else the next unused one.</li>
 *   <li>Rank 0 writes the decision once ({@code compareSet} on {@code rc/<base>/join/decision/<t>},
 *   expecting it absent), then the admitted joiners' answers. The other members read the decision
 *   under that key. Every member and admitted joiner then connects as the next generation,
 *   {@code <base>@gen<g>}, ranks by ascending identity.</li>
 * </ol>
 * Every store call is bounded; a joiner waits for its answer as long as it was told to.
 */
public final class GrowPlanner {

    private static final Logger log = LoggerFactory.getLogger(GrowPlanner.class);
    private static final String OP = "join";
    /** How long rank 0 waits for a request whose ticket was taken. */
    static final Duration REQUEST_WAIT = Duration.ofSeconds(2);

    private GrowPlanner() {
    }

    /**
     * A joiner's admission: the plan it joins by and the identity it has there.
     *
     * @param plan     the decision that admitted it
     * @param identity its identity (its rank is {@code plan.rankOf(identity)})
     */
    public record Admission(GrowPlan plan, int identity) {
    }

    /**
     * The key the members set when the job is done, so that a process still asking to join is told
     * instead of waiting for an answer that will not come.
     *
     * @param base the group's id without its generation suffix
     * @return the key
     */
    public static String finishedKey(String base) {
        return prefix(base) + "finished";
    }

    /**
     * The newest ticket taken so far for {@code base} (0 when nobody ever asked to join).
     *
     * @param store the job's root store
     * @param base  the group's id without its generation suffix
     * @return a cold {@code Mono} of the ticket count
     */
    public static Mono<Long> tickets(Store store, String base) {
        // reads, not add(key, 0): rank 0 asks every 100 ms, and on a replicated store a write is a
        // log entry on every replica while a read is answered by its own replica
        String key = prefix(base) + "tickets";
        return store.check(List.of(key)).flatMap(has -> !has ? Mono.just(0L)
                : store.get(key).map(b -> KeyValueWaiters.parseCounter(key, b)));
    }

    /**
     * Asks to join {@code base} and waits for the answer. Fails with a {@link CollectiveException}
     * naming the group and the reason when refused, with a {@link CollectiveTimeoutException} when no
     * answer came within {@code wait}, with a {@link JobEndedException} when the members finished
     * instead ({@link #finishedKey} set, before or while it waits).
     *
     * @param store       the job's root store
     * @param base        the group's id without its generation suffix
     * @param identity    the identity asked for (a restarted rank's own), or -1 for any
     * @param fingerprint the joiner's state fingerprint ({@code ElasticState.fingerprint()})
     * @param wait        how long to wait for the members' answer
     * @return a cold {@code Mono} of the admission
     */
    public static Mono<Admission> request(Store store, String base, int identity, String fingerprint, Duration wait) {
        return request(store, base, identity, fingerprint, wait, Duration.ZERO);
    }

    /**
     * {@link #request(Store, String, int, String, Duration)}, saying every {@code reportEvery} (zero:
     * never) that it still waits, for how long, and what would answer: {@code join of group 'job' as
     * identity 1 (ticket 3): waiting for a member to admit it at a step boundary (10 s of 2 min 0 s)}.
     */
    public static Mono<Admission> request(Store store, String base, int identity, String fingerprint, Duration wait,
                                          Duration reportEvery) {
        String request = "identity=" + identity + "\nfingerprint=" + fingerprint.replace('\n', ' ');
        return Mono.defer(() -> ticket(store, base, identity, reportEvery)
                .flatMap(t -> reported(store.set(prefix(base) + "request/" + t, utf8(request))
                        .then(Mono.firstWithSignal(store.get(prefix(base) + "answer/" + t, wait),
                                // the members finished instead: nobody will answer
                                store.get(finishedKey(base), wait).flatMap(f -> Mono.error(new JobEndedException(base, identity)))))
                        .onErrorMap(StoreTimeoutException.class, e -> new CollectiveTimeoutException(OP, identity, t,
                                CollectiveException.NO_PEER, wait, "join of group '" + base + "' as identity " + identity
                                + ": no answer to ticket " + t + " within " + wait.toMillis() + " ms from store " + store
                                + " (the members reach a boundary only while they run)"))
                        .map(answer -> admission(base, identity, t, text(answer))), base, identity, t, wait, reportEvery)));
    }

    /**
     * The ticket's {@code add}, with a wait report every {@code every} until the store answers it (a
     * replicated store answers once a majority of its replicas do): {@code join of group 'job' as
     * identity 1: waiting for store TcpStore[h:29500] to answer add rc/job/join/tickets, the ticket
     * that asks to join (10 s)}.
     */
    private static Mono<Long> ticket(Store store, String base, int identity, Duration every) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            Disposable report = WaitReports.every(every, () -> Notices.warn(log, "join of group '" + base + "' as identity "
                    + identity + ": waiting for store " + store + " to answer add " + prefix(base) + "tickets, the ticket "
                    + "that asks to join (" + WaitReports.duration(System.nanoTime() - start) + "); a replicated store "
                    + "answers once a majority of its replicas do"));
            return store.add(prefix(base) + "tickets", 1).doFinally(s -> report.dispose());
        });
    }

    /** {@code asked}, with a wait report every {@code every} while it runs. */
    private static <T> Mono<T> reported(Mono<T> asked, String base, int identity, long ticket, Duration wait, Duration every) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            Disposable report = WaitReports.every(every, () -> Notices.warn(log, "join of group '" + base + "' as identity "
                    + identity + " (ticket " + ticket + "): waiting for a member to admit it at a step boundary ("
                    + WaitReports.duration(System.nanoTime() - start) + " of " + WaitReports.duration(wait.toNanos())
                    + "); only members that still run admit joiners"));
            return asked.doFinally(s -> report.dispose());
        });
    }

    /**
     * Rank 0's decision on the tickets after {@code handled} up to {@code upTo}: reads the
     * requests, answers them and writes the decision (see the protocol). Members that join take the
     * generation {@code nextGeneration}.
     *
     * @param store          the job's root store
     * @param base           the group's id without its generation suffix
     * @param nextGeneration the generation number the joiners begin
     * @param identities     the current members' identities, ascending
     * @param handled        the last ticket already answered
     * @param upTo           the newest ticket (from {@link #tickets})
     * @param fingerprint    the members' state fingerprint
     * @param job            the group's job id
     * @param rank           this rank (0) for messages
     * @param timeout        the bound of each store call
     * @return a cold {@code Mono} of the decision the store holds
     */
    public static Mono<GrowPlan> decide(Store store, String base, int nextGeneration, int[] identities, long handled,
                                        long upTo, String fingerprint, String job, int rank, Duration timeout) {
        return Mono.defer(() -> {
            TreeSet<Integer> taken = new TreeSet<>();
            Arrays.stream(identities).forEach(taken::add);
            Map<Long, Integer> admitted = new LinkedHashMap<>();
            return Flux.range(0, Math.toIntExact(upTo - handled)).map(i -> handled + 1 + i)
                    .concatMap(t -> store.get(prefix(base) + "request/" + t, REQUEST_WAIT)
                            .map(GrowPlanner::text)
                            .flatMap(req -> answerRequest(store, base, t, req, fingerprint, taken, admitted))
                            .onErrorResume(StoreTimeoutException.class, e -> {
                                log.warn("join of group '{}': ticket {} was taken but no request came within {} ms; "
                                        + "it is left out", base, t, REQUEST_WAIT.toMillis());
                                return Mono.empty();
                            }))
                    .then(Mono.defer(() -> {
                        int[] joined = admitted.values().stream().mapToInt(Integer::intValue).sorted().toArray();
                        int[] members = taken.stream().mapToInt(Integer::intValue).toArray();
                        GrowPlan plan = new GrowPlan(nextGeneration, ShrinkPlanner.groupId(base, nextGeneration),
                                members, joined, upTo, job, rank);
                        byte[] encoded = utf8(encode(plan));
                        return store.compareSet(decisionKey(base, upTo), new byte[0], encoded)
                                .map(held -> decode(base, text(held)))
                                .flatMap(held -> Flux.fromIterable(admitted.entrySet())
                                        .concatMap(e -> store.set(prefix(base) + "answer/" + e.getKey(),
                                                utf8("admit identity=" + e.getValue() + "\n" + encode(held))))
                                        .then(Mono.just(held)));
                    }))
                    .timeout(timeout.multipliedBy(2).plus(REQUEST_WAIT.multipliedBy(Math.max(1, upTo - handled))));
        });
    }

    /**
     * A member's reading of rank 0's decision on the tickets up to {@code upTo}.
     *
     * @param store   the job's root store
     * @param base    the group's id without its generation suffix
     * @param upTo    the newest ticket the members agreed on
     * @param timeout how long to wait for rank 0's decision
     * @return a cold {@code Mono} of the decision
     */
    public static Mono<GrowPlan> adopt(Store store, String base, long upTo, Duration timeout) {
        return store.get(decisionKey(base, upTo), timeout).map(b -> decode(base, text(b)));
    }

    private static Mono<Void> answerRequest(Store store, String base, long ticket, String request, String fingerprint,
                                            TreeSet<Integer> taken, Map<Long, Integer> admitted) {
        Map<String, String> fields = fields(request);
        String theirs = fields.getOrDefault("fingerprint", "");
        if (!theirs.equals(fingerprint)) {
            String why = "refused by group '" + base + "': the joiner's state fingerprint '" + theirs
                    + "' differs from the members' '" + fingerprint + "' (another model or build?)";
            log.warn("join of group '{}': ticket {} {}", base, ticket, why);
            return store.set(prefix(base) + "answer/" + ticket, utf8("refuse " + why));
        }
        int asked = Integer.parseInt(fields.getOrDefault("identity", "-1").trim());
        int identity = asked >= 0 && !taken.contains(asked) ? asked : (taken.isEmpty() ? 0 : taken.last() + 1);
        taken.add(identity);
        admitted.put(ticket, identity);
        return Mono.empty();
    }

    private static Admission admission(String base, int asked, long ticket, String answer) {
        if (answer.startsWith("refuse ")) {
            throw new CollectiveException(OP, asked, ticket,
                    "join as identity " + asked + ", ticket " + ticket + ": " + answer.substring("refuse ".length()));
        }
        int nl = answer.indexOf('\n');
        int identity = Integer.parseInt(answer.substring("admit identity=".length(), nl).trim());
        return new Admission(decode(base, answer.substring(nl + 1)), identity);
    }

    private static String encode(GrowPlan p) {
        return "generation=" + p.generation() + "\nmembers=" + join(p.members()) + "\njoined=" + join(p.joined())
                + "\nhandled=" + p.handled() + "\njob=" + p.job() + "\ndecider=" + p.decider();
    }

    private static GrowPlan decode(String base, String text) {
        Map<String, String> f = fields(text);
        int generation = Integer.parseInt(f.get("generation"));
        return new GrowPlan(generation, ShrinkPlanner.groupId(base, generation), ints(f.get("members")),
                ints(f.get("joined")), Long.parseLong(f.get("handled")), f.get("job"), Integer.parseInt(f.get("decider")));
    }

    private static Map<String, String> fields(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return m;
    }

    private static int[] ints(String list) {
        return list == null || list.isBlank() ? new int[0]
                : Arrays.stream(list.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
    }

    private static String join(int[] values) {
        return String.join(",", Arrays.stream(values).mapToObj(Integer::toString).toArray(String[]::new));
    }

    private static String decisionKey(String base, long upTo) {
        return prefix(base) + "decision/" + upTo;
    }

    private static String prefix(String base) {
        return "rc/" + base + "/join/";
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
