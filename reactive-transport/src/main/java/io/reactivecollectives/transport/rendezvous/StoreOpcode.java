package io.reactivecollectives.transport.rendezvous;

/**
 * The first byte of every TCP store frame body. Requests go client to server and carry a request
 * id the response repeats; {@link #CANCEL} and {@link #SET_NO_REPLY} have no response (unless
 * {@code SET_NO_REPLY} fails: then an {@code ERROR} with its id); the handshake frames
 * ({@link #HELLO}, {@link #AUTH}, {@link #READY}) use request id 0.
 */
public enum StoreOpcode {
    // handshake
    HELLO(1), AUTH(2), READY(3),
    // requests
    SET(10), GET(11), ADD(12), COMPARE_SET(13), WAIT(14), CHECK(15), DELETE(16), NUM_KEYS(17),
    MULTI_GET(18), MULTI_SET(19), APPEND(20), CANCEL(21), SET_NO_REPLY(22),
    // responses
    OK(40), VALUE(41), LONG(42), BOOL(43), VALUES(44), ERROR(45);

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

    /** The wire byte. */
    public int code() {
        return code;
    }

    /** The opcode of wire byte {@code code}; {@link StoreProtocolException} if there is none. */
    public static StoreOpcode of(int code) {
        StoreOpcode op = (code & 0xff) == code ? BY_CODE[code] : null;
        if (op == null) {
            throw new StoreProtocolException("unknown opcode " + code);
        }
        return op;
    }
}
