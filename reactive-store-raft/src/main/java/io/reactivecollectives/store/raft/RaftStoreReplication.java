package io.reactivecollectives.store.raft;

import io.reactivecollectives.transport.rendezvous.StoreReplication;
import io.reactivecollectives.transport.rendezvous.StoreReplicationProvider.Replicas;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.ReadIndexException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * One replica of the store as a Raft peer (Apache Ratis over its gRPC transport, which serves linearizable reads on followers): a
 * {@link RaftServer} whose state machine is the store ({@link StoreStateMachine}) and a
 * {@link RaftClient} through which this replica's store server commits its clients' writes (to
 * whichever peer leads) and takes its read barriers (a linearizable read answered here, once this
 * peer applied everything the leader had committed). Reads served this way never go to another host.
 *
 * <p>Elections: a follower that hears nothing from the leader for 300-600 ms stands; a call that
 * finds no majority is tried again every 100 ms for at least a minute ({@value #RETRIES} tries), then
 * fails: a minority of the replicas, cut off, never changes the store and never answers a read; its
 * clients time out. Calls leave the
 * caller's thread at once: they are handed, in order, to one thread of this replica, so that an
 * event loop never waits on Ratis.
 */
final class RaftStoreReplication implements StoreReplication {

    private static final Logger LOG = LoggerFactory.getLogger(RaftStoreReplication.class);
    /**
     * How often Ratis's client tries a call that found no majority (100 ms apart, a second at most per
     * try; its tries carry one call id, so the leader applies a write once): at least a minute, for
     * nodes whose launchers start at different times. The store's clients time out on their own first.
     */
    static final int RETRIES = 600;
    /** How long one read-index request may take before it is tried again. */
    static final long READ_TIMEOUT_SECONDS = 3;
    /** How long a call refused for want of a leader is made again, 100 ms apart (Ratis's own tries come first). */
    static final long RETRY_MILLIS = 60_000;

    private final RaftServer server;
    private final RaftClient client;
    private final RaftPeerId self;
    private final ScheduledExecutorService sends;
    private final RaftGroupId groupId;
    private final ClientId readerId = ClientId.randomId();
    private final AtomicLong readCalls = new AtomicLong();
    /** The replicas' addresses and how many make a majority, for the messages. */
    private final String replicas;
    private final int majority;
    /** Says every wait-report interval that no leader is known yet (disposed once one is). */
    private volatile reactor.core.Disposable leaderless = () -> { };

    private RaftStoreReplication(RaftServer server, RaftClient client, RaftPeerId self, RaftGroupId groupId,
                                 ScheduledExecutorService sends, List<RaftPeer> peers) {
        this.server = server;
        this.client = client;
        this.self = self;
        this.groupId = groupId;
        this.sends = sends;
        this.majority = peers.size() / 2 + 1;
        this.replicas = peers.stream().map(RaftPeer::getAddress).collect(java.util.stream.Collectors.joining(", "));
    }

    /**
     * Says every wait-report interval while no leader is known, until closed, that this replica
     * waits for a majority of the replicas: at the start ({@code no leader yet}: a node whose
     * launcher never starts would otherwise leave the others' ranks silent until their store calls
     * fail) and whenever the leader is lost later ({@code no leader: the last one was lost}, the
     * majority gone), with how long since.
     */
    private void reportLeaderless(String me) {
        long[] since = {System.nanoTime()};   // when the replica was last found without a leader; -1 while it has one
        boolean[] hadLeader = {false};        // on the reports' thread only
        leaderless = WaitReports.every(WaitReports.defaultInterval(), () -> {
            if (leaderKnown()) {
                since[0] = -1;
                hadLeader[0] = true;
                return;
            }
            if (since[0] < 0) {
                since[0] = System.nanoTime();
            }
            Notices.warn(LOG, "store replica " + me + ": " + (hadLeader[0] ? "no leader: the last one was lost" : "no leader yet")
                    + ": waiting for " + majority + " of the store's replicas (" + replicas + ") to answer ("
                    + WaitReports.duration(System.nanoTime() - since[0]) + "); is collectives-run"
                    + " running on every node of --store-peers?");
        });
    }

    private boolean leaderKnown() {
        try {
            return server.getDivision(groupId).getInfo().getLeaderId() != null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** A call's failure as the store's clients read it: no majority, said in words, else Ratis's own. */
    private Throwable described(Throwable failure) {
        if (failure instanceof RaftRetryFailureException || notTaken(failure)) {
            return new IOException("no majority of the store's replicas answered (" + majority + " of " + replicas
                    + ", for " + RETRY_MILLIS / 1000 + " s): are the other nodes' launchers running?", failure);
        }
        return failure;
    }

    /** Starts replica {@code r.self()} of {@code r.peers()} over a fresh log in {@code r.storage()}. */
    static RaftStoreReplication start(Replicas r, UnaryOperator<byte[]> apply) throws IOException {
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < r.peers().size(); i++) {
            InetSocketAddress a = r.peers().get(i);
            String host = a.getHostString().indexOf(':') >= 0 ? "[" + a.getHostString() + "]" : a.getHostString(); // IPv6
            peers.add(RaftPeer.newBuilder().setId("replica-" + i).setAddress(host + ":" + a.getPort()).build());
        }
        RaftGroup group = RaftGroup.valueOf(
                RaftGroupId.valueOf(UUID.nameUUIDFromBytes(r.group().getBytes(StandardCharsets.UTF_8))), peers);
        RaftPeer me = peers.get(r.self());
        RaftProperties props = properties(r);
        RaftServer server = RaftServer.newBuilder()
                .setServerId(me.getId())
                .setGroup(group)
                .setStateMachine(new StoreStateMachine(apply))
                .setProperties(props)
                .setOption(RaftStorage.StartupOption.FORMAT)
                .build();
        RaftClient client;
        try {
            RatisExits.start(server);
            client = RaftClient.newBuilder()
                    .setProperties(props)
                    .setParameters(new Parameters())
                    .setRaftGroup(group)
                    .setClientId(ClientId.randomId())
                    .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(RETRIES,
                            TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                    .build();
        } catch (IOException | RuntimeException e) {
            server.close();   // its port and threads, when it started
            throw e;
        }
        ScheduledExecutorService sends = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "rc-store-replica-" + r.self());
            t.setDaemon(true);
            return t;
        });
        LOG.info("store replica {} of {} serving at {} (group {})", r.self(), peers.size(), me.getAddress(), r.group());
        RaftStoreReplication replication = new RaftStoreReplication(server, client, me.getId(), group.getGroupId(), sends, peers);
        replication.reportLeaderless(r.self() + " of " + peers.size());
        return replication;
    }

    private static RaftProperties properties(Replicas r) {
        RaftProperties props = new RaftProperties();
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
        InetSocketAddress a = r.peers().get(r.self());
        GrpcConfigKeys.Server.setHost(props, a.getHostString());
        GrpcConfigKeys.Server.setPort(props, a.getPort());
        RaftServerConfigKeys.setStorageDir(props, List.of(r.storage().toFile()));
        // the log in memory: a replica always starts empty and is caught up by the others (a replica
        // that comes back never reads its disk), so writing the log to disk would buy nothing
        RaftServerConfigKeys.Log.setUseMemory(props, true);
        RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
        // the first election of a fresh store (every replica starts empty) need not wait as long
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(props, TimeDuration.valueOf(100, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(props, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftClientConfigKeys.Rpc.setRequestTimeout(props, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        return props;
    }

    @Override
    public CompletableFuture<byte[]> commit(byte[] command) {
        Message m = Message.valueOf(ByteString.copyFrom(command));
        // Ratis's blocking client follows the leader (its async client kept asking a follower)
        return call(() -> CompletableFuture.completedFuture(client.io().send(m)), false)
                .thenApply(reply -> reply.getMessage().getContent().toByteArray());
    }

    /**
     * A linearizable read on this replica, submitted to its server directly and not waited for on
     * any thread (the only traffic is the read index a follower asks its leader for).
     */
    @Override
    public CompletableFuture<Void> readBarrier() {
        return call(() -> server.submitClientRequestAsync(RaftClientRequest.newBuilder().setClientId(readerId)
                        .setServerId(self).setGroupId(groupId).setCallId(readCalls.incrementAndGet())
                        .setMessage(Message.EMPTY).setType(RaftClientRequest.readRequestType()).build())
                        .orTimeout(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS),
                true).thenApply(reply -> null);   // a read changes nothing: any failure is tried again
    }

    /**
     * Makes {@code send} on this replica's own thread, in call order; a call that was not taken
     * because there is no leader yet, or this peer is not it ({@link #notTaken}), is made again
     * 100 ms later, for {@value #RETRY_MILLIS} ms in all, as is an {@code idempotent} one (a read)
     * that failed in any way; any other failure fails it.
     */
    private CompletableFuture<RaftClientReply> call(Send send, boolean idempotent) {
        CompletableFuture<RaftClientReply> out = new CompletableFuture<>();
        attempt(send, idempotent, out, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS), 0);
        return out;
    }

    /** One call to Ratis: a write blocks this replica's thread (in order), a read only starts there. */
    private interface Send {
        CompletableFuture<RaftClientReply> send() throws IOException;
    }

    private void attempt(Send send, boolean idempotent, CompletableFuture<RaftClientReply> out, long deadline,
                         long delayMillis) {
        try {
            sends.schedule(() -> {
                CompletableFuture<RaftClientReply> sent;
                try {
                    sent = send.send();
                } catch (IOException | RuntimeException e) {
                    sent = CompletableFuture.failedFuture(e);
                }
                sent.whenComplete((reply, e) -> {
                    Throwable failure = e != null ? (e instanceof CompletionException && e.getCause() != null ? e.getCause() : e)
                            : reply.isSuccess() ? null : reply.getException() != null ? reply.getException()
                            : new IOException("store replica: request not applied");
                    if (failure == null) {
                        out.complete(reply);
                    } else if ((idempotent || notTaken(failure)) && System.nanoTime() < deadline && !sends.isShutdown()) {
                        attempt(send, idempotent, out, deadline, 100);
                    } else {
                        out.completeExceptionally(described(failure));
                    }
                });
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            out.completeExceptionally(new IllegalStateException("store replica closed"));
        }
    }

    /** Whether {@code e} says the request was never applied: no leader yet, or not this peer. */
    private static boolean notTaken(Throwable e) {
        return e instanceof NotLeaderException || e instanceof LeaderNotReadyException || e instanceof ReadIndexException
                || e instanceof LeaderSteppingDownException;
    }

    @Override
    public void close() {
        leaderless.dispose();
        sends.shutdownNow();
        try {
            client.close();
        } catch (IOException e) {
            LOG.debug("store replica: closing its client failed: {}", e.toString());
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("store replica: closing its server failed: {}", e.toString());
        }
    }
}
