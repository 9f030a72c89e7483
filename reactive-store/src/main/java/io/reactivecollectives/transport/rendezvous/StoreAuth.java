package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.store.settings.StoreSettings;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The shared-secret challenge-response of the TCP store: HMAC-SHA256 over random nonces of
 * {@value #NONCE_BYTES} bytes, computed and checked by the handshake MAC the mesh uses too
 * ({@link io.reactivecollectives.store.wire.HandshakeMac}); here, where the secret comes from.
 */
public final class StoreAuth {

    /** The environment variable that turns authentication on for server and clients. */
    public static final String SECRET_ENV = "RC_STORE_SECRET";
    static final int NONCE_BYTES = 32;

    private StoreAuth() {
    }

    /**
     * The secret from {@code env} ({@value #SECRET_ENV}), UTF-8, or null when unset or empty.
     *
     * @param env the environment
     * @return the secret's bytes, or null
     */
    public static byte[] secretFrom(Map<String, String> env) {
        String s = StoreSettings.STORE_SECRET.get(env);
        return s == null || s.isEmpty() ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
