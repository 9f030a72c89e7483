package io.reactivecollectives.spark;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What Spark's own Netty event loops may block on in this module's test JVM (the Spark driver),
 * loaded by BlockHound beside the project's recording integration. BlockHound sees every Netty event
 * loop as non-blocking, Spark's too, but Spark serves requests synchronously on its event loops by
 * design; none of this library's code runs under these call sites, which stay checked everywhere else.
 * <ul>
 *   <li>{@code NettyBlockRpcServer.receive}: the driver's block manager serving a block (a task's
 *       binary, a broadcast) to an executor takes the block's read lock
 *       ({@code BlockInfoManager.lockForReading}), which parks when a writer holds it. Seen on
 *       {@code shuffle-server-*} threads when a local-cluster executor fetched a task binary while
 *       the driver was still storing it; BlockHound's error then broke the fetch and the stage.</li>
 *   <li>{@code BlockManagerManagedBuffer.release}: when the event loop has written a served block, Netty
 *       releases the message, and Spark's buffer unlocks the block in its {@code BlockInfoManager}
 *       (a {@code ReentrantLock}, which parks under contention). Seen in CI on {@code shuffle-server-*}
 *       after the block was sent.</li>
 *   <li>{@code TransportChannelHandler}'s callbacks: every message, connection event and error on
 *       Spark's event loops enters Spark through this one handler, which hands it to Spark's RPC
 *       dispatcher ({@code NettyRpcHandler} posts to an endpoint's inbox through a
 *       {@code LinkedBlockingQueue}, whose lock parks under contention), its block server or its
 *       response callbacks. Seen in CI on {@code rpc-server-*} while the driver and the
 *       local-cluster executors exchanged RPCs. This entry covers the first item too; that one is
 *       kept because it names the path that was seen.</li>
 * </ul>
 */
public final class SparkDriverBlockHoundIntegration implements BlockHoundIntegration {

    /** The methods through which Netty hands Spark's transport handler its work. */
    private static final String[] TRANSPORT_CALLBACKS = {"channelRead0", "channelActive",
        "channelInactive", "channelRegistered", "channelUnregistered", "userEventTriggered", "exceptionCaught"};

    /** Created by BlockHound through the service loader. */
    public SparkDriverBlockHoundIntegration() {
    }

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("org.apache.spark.network.netty.NettyBlockRpcServer", "receive");
        builder.allowBlockingCallsInside("org.apache.spark.storage.BlockManagerManagedBuffer", "release");
        for (String callback : TRANSPORT_CALLBACKS) {
            builder.allowBlockingCallsInside("org.apache.spark.network.server.TransportChannelHandler", callback);
        }
    }
}
