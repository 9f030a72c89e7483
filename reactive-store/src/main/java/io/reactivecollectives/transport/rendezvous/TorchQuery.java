package io.reactivecollectives.transport.rendezvous;

/**
 * The queries of torch's {@code TCPStore} with their byte in each protocol version ({@code -1}:
 * the version has none). 1.x: {@code TCPStore.cpp} of torch v1.13, {@code enum class QueryType}
 * (WATCH_KEY at 7, unused here). 2.x: {@code TCPStoreBackend.hpp} ({@code c10d::detail::QueryType},
 * VALIDATE first since the validation of pytorch/pytorch#107607; PING, after CANCEL_WAIT, came with
 * torch 2.5's connect check and is not sent here, so servers without it are served too).
 */
enum TorchQuery {
    VALIDATE(-1, 0),
    SET(0, 1),
    COMPARE_SET(1, 2),
    GET(2, 3),
    ADD(3, 4),
    CHECK(4, 5),
    WAIT(5, 6),
    GETNUMKEYS(6, 7),
    DELETE_KEY(8, 8),
    APPEND(-1, 9),
    MULTI_GET(-1, 10),
    MULTI_SET(-1, 11),
    CANCEL_WAIT(-1, 12),
    PING(-1, 13);

    /** {@code c10d::detail::validationMagicNumber} (TCPStoreBackend.hpp), sent as a little-endian {@code uint32}. */
    static final int VALIDATION_MAGIC = 0x3C85F7CE;
    /** {@code WaitResponseType::WAIT_CANCELED}, the 2.x reply to CANCEL_WAIT. */
    static final int WAIT_CANCELED = 1;

    private final int v1;
    private final int v2;

    TorchQuery(int v1, int v2) {
        this.v1 = v1;
        this.v2 = v2;
    }

    /** The query's byte in {@code protocol} (V1 or V2). */
    int code(TorchStoreProtocol protocol) {
        int code = switch (protocol) {
            case V1 -> v1;
            case V2 -> v2;
            case AUTO -> throw new IllegalArgumentException("AUTO is not a wire protocol");
        };
        if (code < 0) {
            throw new UnsupportedOperationException("torch " + (protocol == TorchStoreProtocol.V1 ? "1.x" : "2.x")
                    + " TCPStore protocol has no " + name());
        }
        return code;
    }

    /** Whether {@code protocol} has this query. */
    boolean in(TorchStoreProtocol protocol) {
        return (protocol == TorchStoreProtocol.V1 ? v1 : v2) >= 0;
    }
}
