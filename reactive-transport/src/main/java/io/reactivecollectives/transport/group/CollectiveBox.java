package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.CollectiveException;

import io.reactivecollectives.transport.algorithms.SubAddress;

import java.time.Duration;
import java.util.BitSet;
import java.util.function.Function;

/**
 * One collective's state in the {@link Mailbox}: its slots (frames that arrived, receives that
 * wait), its failure, what it is (the agreement every DATA frame is checked against), and the
 * receipts it waits for. Guarded by the mailbox's lock; the accessors are for messages.
 */
public final class CollectiveBox {

    /** Bit of an agreement word that asks the receiver for a receipt (ACK); not part of the agreement. */
    public static final long ACK_REQUESTED = 1L << 32;

    final long sequence;
    String op;                      // null while no local collective owns it
    final Slots slots = new Slots(); // ByteBuf (arrived) | MailboxReceive.Waiter (waiting), by address
    CollectiveException failure;    // once failed, every receive fails with it
    Function<CollectiveBox, CollectiveException> pendingAbort; // a peer's ABORT that came before the local collective started
    long openedNanos;               // when the local collective opened the box
    long timeoutNanos;              // its timeout (0: unknown), for the wait reports
    volatile int waitingOn = -1;    // the peer of the latest receive, for timeout messages
    volatile int waitingTag;        // tag, step, chunk of that receive
    volatile int waitingStep;
    volatile int waitingChunk;
    // the agreement: the local collective's (word 0: not checked), and the first early frames' that differ
    long word;
    long count;
    int earlySource = -1;
    long earlyWord;
    long earlyCount;
    int oddSource = -1;
    long oddWord;
    long oddCount;
    BitSet acksOwed;                // sources whose early frames asked for a receipt
    BitSet acksReceived;
    BitSet acksAwaited;
    Receipts.Waiter ackWaiter;
    CollectiveException receiptFailure;
    volatile boolean ended;                // the local collective signalled its result (its box may still be open)

    CollectiveBox(long sequence) {
        this.sequence = sequence;
    }

    public long sequence() {
        return sequence;
    }

    /** How long the local collective has run (zero while none owns the box). */
    public Duration elapsed() {
        return op == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - openedNanos);
    }

    /** The local collective's name (null while none owns the box). */
    public String opName() {
        return op;
    }

    /** The peer this collective last waited for, or -1. */
    public int waitingOn() {
        return waitingOn;
    }

    /** The local collective's agreement word (0: not checked). */
    public long word() {
        return word;
    }

    /** The local collective's agreement count. */
    public long count() {
        return count;
    }

    /** A description of what it last waited for ({@code tag 0 step 3 chunk 1}), or null. */
    public String waitingWhat() {
        if (waitingOn < 0) {
            return null;
        }
        return "tag " + waitingTag + " " + SubAddress.describeStep(waitingStep) + " chunk " + waitingChunk;
    }

    /** Whether a frame's agreement differs from this box's (neither unchecked). */
    boolean disagrees(long frameWord, long frameCount) {
        return word != 0 && frameWord != 0 && ((frameWord & ~ACK_REQUESTED) != word || frameCount != count);
    }

    /** A frame that came before the local collective opened: keep its agreement for {@link #earlyDisagreement}. */
    void noteEarly(int source, long frameWord, long frameCount) {
        if ((frameWord & ACK_REQUESTED) != 0) {
            if (acksOwed == null) {
                acksOwed = new BitSet();
            }
            acksOwed.set(source);
        }
        long w = frameWord & ~ACK_REQUESTED;
        if (earlySource < 0) {
            earlySource = source;
            earlyWord = w;
            earlyCount = frameCount;
        } else if (oddSource < 0 && (w != earlyWord || frameCount != earlyCount)) {
            oddSource = source;
            oddWord = w;
            oddCount = frameCount;
        }
    }

    /** The first early frame whose agreement differs from the local collective's, or null. */
    Disagreement earlyDisagreement() {
        if (earlySource >= 0 && disagrees(earlyWord, earlyCount)) {
            return new Disagreement(earlySource, earlyWord, earlyCount);
        }
        if (oddSource >= 0 && disagrees(oddWord, oddCount)) {
            return new Disagreement(oddSource, oddWord, oddCount);
        }
        return null;
    }
}
