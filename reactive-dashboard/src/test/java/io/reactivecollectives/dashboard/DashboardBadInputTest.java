package io.reactivecollectives.dashboard;

import io.reactivecollectives.transport.DashboardOptions;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint under bad input: a status and a one-line reason, bounded, never a hang. */
class DashboardBadInputTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static DashboardCluster job;
    private static String base;

    @BeforeAll
    static void start() {
        job = DashboardCluster.start(2);
        base = job.base(0);
    }

    @AfterAll
    static void stop() {
        if (job != null) {
            job.close();
        }
    }

    @Test
    void anUnknownPathIs404WithWhatIsServed() throws Exception {
        HttpResponse<String> r = job.get(base + "/api/nope?x=1");
        assertEquals(404, r.statusCode());
        assertTrue(r.body().contains("no such path: /api/nope") && r.body().contains("/api/job"), r.body());
        assertEquals(404, job.get(base + "/../../etc/passwd").statusCode());
    }

    @Test
    void anotherMethodIs405AndItsBodyIsNotRead() throws Exception {
        HttpClient c = HttpClient.newHttpClient();
        byte[] body = new byte[8 << 20];
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(base + "/api/rank"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, r.statusCode());
        assertEquals("GET", r.headers().firstValue("allow").orElse(""));
        assertEquals(200, job.get(base + "/api/rank").statusCode(), "the endpoint still serves");
    }

    @Test
    void anOversizedRequestLineOrHeaderIsRefused() throws Exception {
        String longPath = "/api/rank?" + "x".repeat(DashboardServer.MAX_INITIAL_LINE * 2);
        int line = raw("GET " + longPath + " HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(Set.of(400, 413, 414).contains(line), "status " + line);
        int header = raw("GET /api/rank HTTP/1.1\r\nHost: x\r\nX-Big: " + "y".repeat(DashboardServer.MAX_HEADERS * 2) + "\r\n\r\n");
        assertTrue(Set.of(400, 413, 431).contains(header), "status " + header);
        int garbage = raw("NOT HTTP AT ALL\r\n\r\n");
        assertTrue(garbage == 400 || garbage == -1, "status " + garbage);
        assertEquals(200, job.get(base + "/api/rank").statusCode(), "the endpoint still serves");
    }

    /** Sends {@code request} as is on a new connection; the status of the answer, -1 when it closed without one. */
    private static int raw(String request) throws Exception {
        URI u = URI.create(base);
        try (Socket s = new Socket(u.getHost(), u.getPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] head = new byte[12];
            int n = 0;
            for (int k; n < head.length && (k = in.read(head, n, head.length - n)) > 0; ) {
                n += k;
            }
            return n < 12 ? -1 : Integer.parseInt(new String(head, 9, 3, StandardCharsets.US_ASCII));
        }
    }

    @Test
    void manyClientsAtOnceAreAllAnsweredInBoundedMemory() throws Exception {
        int ok = burst(200);   // warm: classes, pools, caches
        long before = heapAfterGc();
        for (int round = 0; round < 5; round++) {
            ok += burst(200);
        }
        long grown = heapAfterGc() - before;
        assertTrue(ok > 0);
        System.out.println("DashboardBadInputTest: heap in use after GC grew " + (grown >> 10) + " KiB over 1,000 requests ("
                + ok + " answered 200 of 1,200)");
        assertTrue(grown < 4L << 20, "the heap in use grew by " + (grown >> 20) + " MiB over 1,000 requests");
    }

    /** {@code n} requests at once, half for the job's state; every answer 200 or 503; how many were 200. */
    private static int burst(int n) throws Exception {
        HttpClient c = CLIENT;   // one client: the measure is the server's memory, not the clients'
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(c.sendAsync(HttpRequest.newBuilder(URI.create(base + (i % 2 == 0 ? "/api/job" : "/api/rank")))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int ok = 0;
        for (CompletableFuture<HttpResponse<String>> f : all) {
            int status = f.get().statusCode();
            assertTrue(status == 200 || status == 503, "status " + status);
            ok += status == 200 ? 1 : 0;
        }
        return ok;
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void anAddressOtherThanLoopbackNeedsTheSecret() throws Exception {
        GroupOptions o = GroupOptions.defaults().withGroupId("dash-secret").withSecret("s3cret")
                .withDashboard(new DashboardOptions("0.0.0.0", 0));
        try (DashboardCluster secured = DashboardCluster.start(2, o)) {
            String b = secured.base(1);
            assertEquals(401, secured.get(b + "/api/rank").statusCode());
            assertEquals(401, secured.get(b + "/api/rank", "Authorization", "Bearer wrong").statusCode());
            assertEquals(200, secured.get(b + "/api/rank", "Authorization", "Bearer s3cret").statusCode());
            HttpResponse<String> login = secured.get(b + "/?token=s3cret");
            assertEquals(303, login.statusCode());
            String cookie = login.headers().firstValue("set-cookie").orElseThrow();
            assertTrue(cookie.toLowerCase(java.util.Locale.ROOT).contains("httponly") && cookie.contains("SameSite=Strict"), cookie);
            assertEquals(200, secured.get(b + "/api/job", "Cookie", cookie.substring(0, cookie.indexOf(';'))).statusCode());
            // the cookie holds a token derived from the secret (HMAC-SHA256 of a label), never the secret itself
            assertFalse(login.headers().map().toString().contains("s3cret"), login.headers().map().toString());
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec("s3cret".getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
            String token = java.util.HexFormat.of().formatHex(mac.doFinal(
                    "rc-dashboard-cookie".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            assertTrue(cookie.startsWith("rc-dashboard=" + token + ";"), cookie);
            // the cookie takes the token, not the secret (which only Bearer and ?token= take)
            assertEquals(401, secured.get(b + "/api/rank", "Cookie", "rc-dashboard=s3cret").statusCode());
            assertEquals(401, secured.get(b + "/api/rank", "Authorization", "Bearer " + token).statusCode());
            // rank 0's job page reads rank 1 with the secret
            JobState state = Json.read(secured.get(secured.base(0) + "/api/job", "Authorization", "Bearer s3cret").body(),
                    JobState.class);
            assertTrue(state.ranks().stream().allMatch(RankState::reachable), String.valueOf(state));
        }
    }

    @Test
    void anAddressOtherThanLoopbackWithoutASecretDoesNotStart() {
        GroupOptions o = GroupOptions.defaults().withGroupId("dash-open").withDashboard(new DashboardOptions("0.0.0.0", 0));
        Exception e = assertThrows(Exception.class, () -> LocalCluster.start(2, o).block(Duration.ofSeconds(30)));
        assertTrue(String.valueOf(e.getMessage()).contains("needs the group's secret"), String.valueOf(e));
    }
}
