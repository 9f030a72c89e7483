package io.reactivecollectives.store.raft;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * The store's state as Ratis sees it: every committed entry is one of the server's write commands,
 * applied in log order through the server's {@code apply} (which changes its keys and wakes its
 * waiters) and answered with what that returned. Queries are read barriers only: the server reads
 * its own state once Ratis says this replica caught up, so a query answers nothing.
 */
final class StoreStateMachine extends BaseStateMachine {

    private final UnaryOperator<byte[]> apply;

    StoreStateMachine(UnaryOperator<byte[]> apply) {
        this.apply = apply;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        byte[] command = entry.getStateMachineLogEntry().getLogData().toByteArray();
        byte[] result;
        synchronized (this) {   // Ratis applies one entry at a time; the index moves with the state
            result = apply.apply(command);
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(result)));
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.EMPTY);
    }
}
