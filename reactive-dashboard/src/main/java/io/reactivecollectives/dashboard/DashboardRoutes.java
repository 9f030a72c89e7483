package io.reactivecollectives.dashboard;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;
import io.reactivecollectives.core.observe.ChromeTrace;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.transport.GroupView;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a rank's endpoint answers: the page's files, {@code /api/rank}, {@code /api/job},
 * {@code /api/flight-recorder}, {@code /api/trace} and {@code /api/job/trace}, to {@code GET} only. A bad request gets a status and a one-line JSON error ({@code 404} for an unknown
 * path, {@code 405} for another method, {@code 401} without the group's secret where one is needed,
 * {@code 503} past {@link #MAX_CLIENTS} requests at once); request bodies are never read. The secret
 * is taken as {@code Authorization: Bearer} or once as {@code ?token=}, which sets a cookie holding
 * {@link GroupView#dashboardToken()}, a token derived from it: the secret is never sent back.
 */
final class DashboardRoutes {

    /** Requests served at once; more are answered 503 (idle keep-alive connections do not count). */
    static final int MAX_CLIENTS = 64;
    static final String COOKIE = "rc-dashboard";
    static final List<String> API = List.of("/api/rank", "/api/job", "/api/flight-recorder", "/api/trace",
            "/api/job/trace");
    private static final Set<HttpMethod> METHODS = Set.of(HttpMethod.GET);

    private final GroupView view;
    private final boolean needsSecret;
    private final RankStates rank;
    private final JobStates job;
    private final Map<String, StaticPage.File> files;
    private final AtomicInteger clients = new AtomicInteger();

    DashboardRoutes(GroupView view, boolean needsSecret, RankStates rank, JobStates job, Map<String, StaticPage.File> files) {
        this.view = view;
        this.needsSecret = needsSecret;
        this.rank = rank;
        this.job = job;
        this.files = files;
    }

    Publisher<Void> handle(HttpServerRequest req, HttpServerResponse res) {
        res.header(HttpHeaderNames.CACHE_CONTROL, "no-store").header("X-Content-Type-Options", "nosniff");
        if (clients.incrementAndGet() > MAX_CLIENTS) {
            clients.decrementAndGet();
            return error(res.header(HttpHeaderNames.RETRY_AFTER, "1"), HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "more than " + MAX_CLIENTS + " requests at once: try again");
        }
        return Mono.from(route(req, res)).doFinally(s -> clients.decrementAndGet());
    }

    private Publisher<Void> route(HttpServerRequest req, HttpServerResponse res) {
        if (!METHODS.contains(req.method())) {
            return error(res.header(HttpHeaderNames.ALLOW, "GET"), HttpResponseStatus.METHOD_NOT_ALLOWED,
                    req.method() + " is not served: GET only");
        }
        QueryStringDecoder uri = new QueryStringDecoder(req.uri());
        String path = uri.path();
        if (needsSecret && !authorised(req)) {
            List<String> token = uri.parameters().get("token");
            if (token != null && view.admits(token.get(0)) && files.containsKey(path)) {
                Cookie c = new DefaultCookie(COOKIE, view.dashboardToken());   // derived from the secret, never the secret
                c.setHttpOnly(true);
                c.setPath("/");
                return res.status(HttpResponseStatus.SEE_OTHER).header(HttpHeaderNames.SET_COOKIE,
                        ServerCookieEncoder.STRICT.encode(c) + "; SameSite=Strict").header(HttpHeaderNames.LOCATION, path).send();
            }
            return error(res.header(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer"), HttpResponseStatus.UNAUTHORIZED,
                    "this dashboard needs the group's secret: 'Authorization: Bearer <secret>', or ?token=<secret> once");
        }
        StaticPage.File f = files.get(path);
        if (f != null) {
            return send(res, f.contentType(), f.bytes());
        }
        return switch (path) {
            case "/api/rank" -> json(res, Json.write(rank.read()));
            case "/api/job" -> job.read().flatMap(j -> Mono.from(json(res, Json.write(j))));
            case "/api/flight-recorder" ->
                    json(res, FlightRecorder.toJson(view.flightRecorder().snapshot("dashboard")).getBytes(StandardCharsets.UTF_8));
            case "/api/trace" -> trace(res, List.of(view.flightRecorder().snapshot("dashboard")));
            case "/api/job/trace" -> job.recorders().flatMap(d -> Mono.from(trace(res, d)));
            default -> error(res, HttpResponseStatus.NOT_FOUND, "no such path: " + abbreviate(path) + "; served: /, " + API);
        };
    }

    private Publisher<Void> trace(HttpServerResponse res, List<io.reactivecollectives.core.observe.FlightRecorderDump> dumps) {
        res.header(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"trace-" + view.groupId() + ".json\"");
        return json(res, ChromeTrace.toJson(dumps).getBytes(StandardCharsets.UTF_8));
    }

    private boolean authorised(HttpServerRequest req) {
        String auth = req.requestHeaders().get(HttpHeaderNames.AUTHORIZATION);
        if (auth != null && auth.startsWith("Bearer ") && view.admits(auth.substring(7).trim())) {
            return true;
        }
        for (Map.Entry<CharSequence, ? extends java.util.Collection<Cookie>> e : req.allCookies().entrySet()) {
            if (COOKIE.contentEquals(e.getKey()) && e.getValue().stream().anyMatch(c -> view.admitsToken(c.value()))) {
                return true;
            }
        }
        return false;
    }

    private static Publisher<Void> json(HttpServerResponse res, byte[] body) {
        return send(res, "application/json", body);
    }

    private static Publisher<Void> send(HttpServerResponse res, String type, byte[] body) {
        return res.header(HttpHeaderNames.CONTENT_TYPE, type).header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length))
                .sendByteArray(Mono.just(body));
    }

    private static Publisher<Void> error(HttpServerResponse res, HttpResponseStatus status, String message) {
        byte[] body = Json.write(Map.of("status", status.code(), "error", message));
        return send(res.status(status), "application/json", body);
    }

    private static String abbreviate(String path) {
        return path.length() <= 80 ? path : path.substring(0, 80) + "...";
    }
}
