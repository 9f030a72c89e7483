package io.reactivecollectives.transport.rendezvous;

/**
 * The first byte of every TCP store frame body. Requests go client to server and carry a request
 * id the response repeats; {@link #CANCEL} and {@link #SET_NO_REPLY} have no response (unless
 * {@code SET_NO_REPLY} fails: then an {@code ERROR} with its id); the handshake frames
 * ({@link #HELLO}, {@link #AUTH}, {@link #READY}) use request id 0.
 */
public enum StoreOpcode {
    /** Server to client on connecting: protocol version, whether authentication is required, a nonce. */
    HELLO(1),
    /** Client to server: the MAC of the server's nonce and the client's own nonce. */
    AUTH(2),
    /** Server to client: the handshake succeeded (with a secret, carrying the server's proof). */
    READY(3),
    /** Sets a key; answered with {@link #OK}. */
    SET(10),
    /** Gets a key, waiting for it to be set; answered with {@link #VALUE} or {@link #ERROR}. */
    GET(11),
    /** Adds to a counter; answered with {@link #LONG}, the new value. */
    ADD(12),
    /** Compare-and-set; answered with {@link #VALUE}, the value held afterwards. */
    COMPARE_SET(13),
    /** Waits until keys are set; answered with {@link #OK} or {@link #ERROR}. */
    WAIT(14),
    /** Whether keys are set, without waiting; answered with {@link #BOOL}. */
    CHECK(15),
    /** Deletes a key; answered with {@link #BOOL}, whether it existed. */
    DELETE(16),
    /** Counts the keys; answered with {@link #LONG}. */
    NUM_KEYS(17),
    /** Gets several keys, waiting for them; answered with {@link #VALUES} or {@link #ERROR}. */
    MULTI_GET(18),
    /** Sets several keys; answered with {@link #OK}. */
    MULTI_SET(19),
    /** Appends to a key's bytes; answered with {@link #LONG}, the new length. */
    APPEND(20),
    /** Drops a pending request of the same connection; not answered. */
    CANCEL(21),
    /** Sets a key without an answer (an {@link #ERROR} only if it fails). */
    SET_NO_REPLY(22),
    /** The request succeeded and returns nothing. */
    OK(40),
    /** One value. */
    VALUE(41),
    /** A 64-bit number. */
    LONG(42),
    /** A boolean. */
    BOOL(43),
    /** Several values, in the order of the keys asked for. */
    VALUES(44),
    /** The request failed: code, operation, message, missing keys, time waited. */
    ERROR(45);

    private static final StoreOpcode[] BY_CODE = new StoreOpcode[256];

    static {
        for (StoreOpcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;

    StoreOpcode(int code) {
        this.code = code;
    }

    /**
     * The wire byte.
     *
     * @return the opcode's byte, 1 to 255
     */
    public int code() {
        return code;
    }

    /**
     * The opcode of wire byte {@code code}.
     *
     * @param code the wire byte
     * @return the opcode
     * @throws StoreProtocolException if no opcode has that byte
     */
    public static StoreOpcode of(int code) {
        StoreOpcode op = (code & 0xff) == code ? BY_CODE[code] : null;
        if (op == null) {
            throw new StoreProtocolException("unknown opcode " + code);
        }
        return op;
    }
}
