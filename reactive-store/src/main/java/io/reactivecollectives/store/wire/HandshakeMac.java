package io.reactivecollectives.store.wire;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * The HMAC-SHA256 that authenticates the handshakes of the store and of the mesh, its constant-time
 * check, and the random nonces of a challenge-response. The random source (a DRBG) is seeded when
 * this class initialises, so drawing nonces later does no I/O and may run on an event loop.
 */
public final class HandshakeMac {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int SEED_BYTES = 32;
    private HandshakeMac() {
    }

    /**
     * The random source, in a holder of its own: seeding it reads the OS's entropy (a blocking read),
     * so only {@link #init()} and {@link #nonce(int)} load it, never {@link #mac} or {@link #verify},
     * which the mesh's handshake calls on an event loop.
     */
    private static final class Random {
        static final SecureRandom RANDOM = newRandom();
    }

    private static SecureRandom newRandom() {
        SecureRandom r;
        try {
            r = SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            r = new SecureRandom();
        }
        r.nextBytes(new byte[SEED_BYTES]); // seed now, off the event loops
        return r;
    }

    /** Forces the random source to be seeded (call from a thread that may block). */
    public static void init() {
        Random.RANDOM.nextInt();
    }

    /** {@code bytes} fresh random bytes. */
    public static byte[] nonce(int bytes) {
        byte[] b = new byte[bytes];
        Random.RANDOM.nextBytes(b);
        return b;
    }

    /** HMAC-SHA256 of {@code data} under {@code secret}. */
    public static byte[] mac(byte[] secret, byte[] data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " unavailable", e);
        }
    }

    /** Constant-time comparison of {@code mac} with HMAC-SHA256(secret, data). */
    public static boolean verify(byte[] secret, byte[] data, byte[] mac) {
        return MessageDigest.isEqual(mac(secret, data), mac);
    }
}
