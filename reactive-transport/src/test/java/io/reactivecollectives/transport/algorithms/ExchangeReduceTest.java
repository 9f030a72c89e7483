package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.nio.ByteOrder;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fused exchange of a small all-reduce or a barrier round: the received piece is reduced only
 * once the send is done (the range is still being read until then), and it is released exactly
 * once on every ending: success, a failed send after it arrived, a wrong length, a cancel.
 */
class ExchangeReduceTest {

    private final ByteBuf mine = Unpooled.directBuffer(8).order(ByteOrder.LITTLE_ENDIAN);
    private final Sinks.Empty<Void> sent = Sinks.empty();
    private final Sinks.One<ByteBuf> received = Sinks.one();
    private int sendsCancelled;

    private final Peers peers = new Peers() {
        @Override public int rank() { return 0; }
        @Override public int size() { return 2; }
        @Override public String op() { return "allReduce"; }
        @Override public long sequence() { return 7; }
        @Override public int segmentBytes() { return 1 << 18; }
        @Override public int pipelineDepth() { return 2; }

        @Override
        public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
            payload.release();
            return sent.asMono().doOnCancel(() -> sendsCancelled++);
        }

        @Override
        public Mono<ByteBuf> receive(int peer, int step, int chunk) {
            return received.asMono();
        }

        @Override
        public CollectiveException protocolError(int peer, String detail) {
            return new CollectiveException(op(), rank(), sequence(), peer, detail, null);
        }
    };

    ExchangeReduceTest() {
        mine.writeFloatLE(1f).writeFloatLE(2f);
    }

    @AfterEach
    void release() {
        mine.release();
    }

    private static ByteBuf piece(float a, float b) {
        return Unpooled.directBuffer(8).order(ByteOrder.LITTLE_ENDIAN).writeFloatLE(a).writeFloatLE(b);
    }

    private Mono<Void> exchange() {
        return Transfers.exchangeReduce(peers, 1, 0, 0, ReduceOp.SUM, DType.FLOAT32, mine, 0, 2);
    }

    @Test
    void reducesOnlyOnceTheSendIsDone() {
        ByteBuf in = piece(10f, 20f);
        StepVerifier.create(exchange())
                .then(() -> {
                    received.tryEmitValue(in);
                    assertEquals(1f, mine.getFloatLE(0), "not reduced while the send still reads the range");
                    sent.tryEmitEmpty();
                })
                .expectComplete()
                .verify(Duration.ofSeconds(5));
        assertEquals(11f, mine.getFloatLE(0));
        assertEquals(22f, mine.getFloatLE(4));
        assertEquals(0, in.refCnt(), "the piece is released");
    }

    @Test
    void aFailedSendAfterThePieceCameReleasesIt() {
        ByteBuf in = piece(10f, 20f);
        IllegalStateException boom = new IllegalStateException("link down");
        StepVerifier.create(exchange())
                .then(() -> {
                    received.tryEmitValue(in);
                    sent.tryEmitError(boom);
                })
                .expectErrorMatches(e -> e == boom)
                .verify(Duration.ofSeconds(5));
        assertEquals(0, in.refCnt());
        assertEquals(1f, mine.getFloatLE(0), "nothing reduced");
    }

    @Test
    void aPieceOfTheWrongLengthIsAProtocolErrorNamingThePeer() {
        ByteBuf in = Unpooled.directBuffer(4).writeFloatLE(5f);
        StepVerifier.create(exchange())
                .then(() -> {
                    sent.tryEmitEmpty();
                    received.tryEmitValue(in);
                })
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof CollectiveException, e.toString());
                    assertTrue(e.getMessage().contains("rank 1 sent 4 bytes"), e.getMessage());
                })
                .verify(Duration.ofSeconds(5));
        assertEquals(0, in.refCnt());
    }

    @Test
    void cancellingWhileThePieceWaitsForTheSendReleasesItAndCancelsTheSend() {
        ByteBuf in = piece(10f, 20f);
        StepVerifier.create(exchange())
                .then(() -> received.tryEmitValue(in))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertEquals(0, in.refCnt());
        assertEquals(1, sendsCancelled);
        assertEquals(1f, mine.getFloatLE(0));
    }

    @Test
    void aBarrierRoundSendsToOneRankAndHearsFromAnother() {
        StepVerifier.create(Transfers.exchangeEmpty(peers, 1, 1, 0))
                .then(() -> {
                    sent.tryEmitEmpty();
                    received.tryEmitValue(Unpooled.EMPTY_BUFFER);
                })
                .expectComplete()
                .verify(Duration.ofSeconds(5));
    }
}
