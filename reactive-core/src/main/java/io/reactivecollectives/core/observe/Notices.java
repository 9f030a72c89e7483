package io.reactivecollectives.core.observe;

import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

/**
 * The few lines a user must see whatever the logging set-up: who a rank is waiting for (rendezvous,
 * a collective, a shrink), where a flight-recorder dump went, and the failures that end a process or
 * a connection. Each goes to its SLF4J logger as usual; when SLF4J has no provider (no binding on
 * the class path: SLF4J 2 then falls back to its no-operation logger and drops everything), these
 * lines, and only these, are printed to {@code System.err} instead, prefixed with {@value #PREFIX}.
 * A no-operation provider chosen on purpose ({@code slf4j-nop} on the class path) is respected.
 * Nothing else of the library's logging is affected.
 */
public final class Notices {

    /** What each line printed to {@code System.err} starts with. */
    public static final String PREFIX = "[reactive-collectives] ";

    private static volatile Boolean toStandardError;

    private Notices() {
    }

    /**
     * Whether the essential lines go to {@code System.err}: SLF4J found no provider (decided once,
     * on the first line).
     *
     * @return whether SLF4J has no provider, so that notices are printed to {@code System.err}
     */
    public static boolean toStandardError() {
        Boolean b = toStandardError;
        if (b == null) {
            b = noProvider(LoggerFactory.getILoggerFactory(), nopChosen());
            toStandardError = b;
        }
        return b;
    }

    /**
     * Whether {@code factory} is SLF4J's fallback for a class path without a provider.
     *
     * @param factory   the factory SLF4J settled on
     * @param nopChosen whether {@code slf4j-nop} (a no-operation provider chosen on purpose) is present
     * @return whether notices go to {@code System.err}
     */
    static boolean noProvider(ILoggerFactory factory, boolean nopChosen) {
        return factory instanceof NOPLoggerFactory && !nopChosen;
    }

    private static boolean nopChosen() {
        try {
            Class.forName("org.slf4j.nop.NOPServiceProvider", false, Notices.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * An information notice (where a dashboard is served): on the logger at INFO, or on
     * {@code System.err} when no logging binding is present.
     *
     * @param log     the logger it belongs to
     * @param message the whole line
     */
    public static void info(Logger log, String message) {
        if (toStandardError()) {
            print(message);
        } else {
            log.info(message);
        }
    }

    /**
     * A warning notice (a rank waiting for others, a dump written, a rank left out).
     *
     * @param log     the logger it belongs to
     * @param message the whole line
     */
    public static void warn(Logger log, String message) {
        if (toStandardError()) {
            print(message);
        } else {
            log.warn(message);
        }
    }

    /**
     * An error notice (the process is torn down, a connection is lost); the stack trace of
     * {@code error} goes to the logger only, {@code System.err} gets its one-line description.
     *
     * @param log     the logger it belongs to
     * @param message the whole line
     * @param error   the cause, or null
     */
    public static void error(Logger log, String message, Throwable error) {
        if (toStandardError()) {
            print(error == null ? message : message + " (" + error + ")");
        } else {
            log.error(message, error);
        }
    }

    /** One println (one write of the whole line: lines of concurrent ranks do not interleave). */
    private static void print(String message) {
        System.err.println(PREFIX + message);
    }
}
