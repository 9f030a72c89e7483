package io.reactivecollectives.core.rendezvous;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A store call ran out of time: a wait whose keys did not all appear (naming the keys still
 * missing, the first ten of many in the message and all of them in {@link #missingKeys()}, and the time waited), or a call a remote store did not answer within its deadline
 * ({@link #noReply}: naming the operation, its keys and the store's address).
 */
public class StoreTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The keys that did not exist when the wait ran out. */
    private final List<String> missingKeys;
    /** How long the call waited. */
    private final Duration waited;
    /** The remote store's {@code host:port}, or null for a local store. */
    private final String address;

    /**
     * A wait of {@code operation} that ran out after {@code waited} with {@code missingKeys} still absent.
     *
     * @param operation   the store call ({@code get})
     * @param missingKeys the keys still absent
     * @param waited      how long it waited
     */
    public StoreTimeoutException(String operation, List<String> missingKeys, Duration waited) {
        this(operation + ": timed out after " + waited.toMillis() + " ms waiting for keys " + listed(missingKeys),
                waited, missingKeys, null);
    }

    /**
     * As {@link #StoreTimeoutException(String, List, Duration)}, for the store at {@code address}
     * ({@code host:port}), which the message names.
     *
     * @param operation   the store call ({@code get})
     * @param missingKeys the keys still absent
     * @param waited      how long it waited
     * @param address     the store's {@code host:port}
     */
    public StoreTimeoutException(String operation, List<String> missingKeys, Duration waited, String address) {
        this(operation + " at " + address + ": timed out after " + waited.toMillis() + " ms waiting for keys "
                + listed(missingKeys), waited, missingKeys, address);
    }

    private StoreTimeoutException(String message, Duration waited, List<String> missingKeys, String address) {
        super(message);
        this.missingKeys = List.copyOf(missingKeys);
        this.waited = waited;
        this.address = address;
    }

    /**
     * The store at {@code address} did not answer {@code operation} on {@code keys} within
     * {@code deadline} (a stopped, frozen or overloaded store host), e.g.
     * {@code store get("rc/g/addr/1") at 127.0.0.1:29500: no reply within 10000 ms}. For a waiting
     * call, {@link #missingKeys()} are all of its keys (the client cannot know which exist).
     *
     * @param operation the store call ({@code get})
     * @param keys      the call's keys
     * @param address   the store's {@code host:port}
     * @param deadline  the deadline that ran out
     * @return the exception
     * @param detail appended to the message when not null (e.g. the wait the call asked for)
     */
    public static StoreTimeoutException noReply(String operation, List<String> keys, String address,
                                                Duration deadline, String detail) {
        return new StoreTimeoutException("store " + operation + "(" + describe(keys) + ") at " + address
                + ": no reply within " + deadline.toMillis() + " ms" + (detail == null ? "" : " (" + detail + ")"),
                deadline, keys, address);
    }

    /** The most keys a timed-out wait's message lists ({@link #missingKeys()} holds all of them). */
    private static final int LISTED = 10;

    /** {@code [a, b]}: at most {@link #LISTED} keys, then how many in all ({@code [a, …, j, … 1000 keys]}). */
    static String listed(List<String> keys) {
        return keys.size() <= LISTED ? keys.toString()
                : "[" + String.join(", ", keys.subList(0, LISTED)) + ", … " + keys.size() + " keys]";
    }

    /** {@code "a", "b"}: at most three keys, then how many more. */
    static String describe(List<String> keys) {
        String shown = keys.stream().limit(3).map(k -> "\"" + k + "\"").collect(Collectors.joining(", "));
        return keys.size() <= 3 ? shown : shown + ", … " + keys.size() + " keys";
    }

    /**
     * The keys that did not exist when the wait ran out.
     *
     * @return the missing keys
     */
    public List<String> missingKeys() {
        return missingKeys;
    }

    /**
     * How long the call waited.
     *
     * @return the time waited
     */
    public Duration waited() {
        return waited;
    }

    /**
     * The address ({@code host:port}) of the remote store that timed out, or null for a local store.
     *
     * @return the address, or null
     */
    public String address() {
        return address;
    }
}
