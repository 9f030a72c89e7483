package io.reactivecollectives.transport.rendezvous;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Map;

/**
 * The shared-secret challenge-response of the TCP store: HMAC-SHA256 over random nonces. The
 * random source (a DRBG) is seeded when this class initialises, so drawing nonces later does no
 * I/O and may run on an event loop.
 */
public final class StoreAuth {

    /** The environment variable that turns authentication on for server and clients. */
    public static final String SECRET_ENV = "RC_STORE_SECRET";
    static final int NONCE_BYTES = 32;

    private static final SecureRandom RANDOM = newRandom();

    private StoreAuth() {
    }

    private static SecureRandom newRandom() {
        SecureRandom r;
        try {
            r = SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            r = new SecureRandom();
        }
        r.nextBytes(new byte[NONCE_BYTES]); // seed now, off the event loops
        return r;
    }

    /** Forces the random source to be seeded (call from a thread that may block). */
    static void init() {
        RANDOM.nextInt();
    }

    static byte[] nonce() {
        byte[] b = new byte[NONCE_BYTES];
        RANDOM.nextBytes(b);
        return b;
    }

    static byte[] hmac(byte[] secret, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Constant-time comparison of {@code mac} with HMAC(secret, data). */
    static boolean verify(byte[] secret, byte[] data, byte[] mac) {
        return MessageDigest.isEqual(hmac(secret, data), mac);
    }

    /** The secret from {@code env} ({@value #SECRET_ENV}), UTF-8, or null when unset or empty. */
    public static byte[] secretFrom(Map<String, String> env) {
        String s = env.get(SECRET_ENV);
        return s == null || s.isEmpty() ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
