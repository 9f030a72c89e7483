package io.reactivecollectives.core.rendezvous;

import java.time.Duration;
import java.util.List;

/** A store wait ran out: names the keys still missing and the time waited. */
public class StoreTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> missingKeys;
    private final Duration waited;

    public StoreTimeoutException(String operation, List<String> missingKeys, Duration waited) {
        super(operation + ": timed out after " + waited.toMillis() + " ms waiting for keys " + missingKeys);
        this.missingKeys = List.copyOf(missingKeys);
        this.waited = waited;
    }

    /** The keys that did not exist when the wait ran out. */
    public List<String> missingKeys() {
        return missingKeys;
    }

    /** How long the call waited. */
    public Duration waited() {
        return waited;
    }
}
