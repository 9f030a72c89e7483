package io.reactivecollectives.transport;

import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.transport.runtime.DataPathDirectives;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;

/**
 * A child JVM for {@link DataPathDirectivesProcessesTest}: starts a group of two ranks, waits for
 * the data path's directives to be added (or not), and prints the outcome and which directives the
 * JIT now has.
 */
public final class DataPathDirectivesMain {

    private DataPathDirectivesMain() {
    }

    /**
     * Runs the group.
     *
     * @param args none
     * @throws Exception when the group fails
     */
    public static void main(String[] args) throws Exception {
        System.out.println("before " + DataPathDirectives.outcome().isDone());
        GroupOptions o = GroupOptions.defaults().withGroupId("directives");
        HashStore store = new HashStore(Duration.ofSeconds(30));
        CompletableFuture<MeshProcessGroup> first = MeshProcessGroup.connect(store, 0, 2, o).toFuture();
        MeshProcessGroup g1 = MeshProcessGroup.connect(store, 1, 2, o).block(Duration.ofSeconds(30));
        MeshProcessGroup g0 = first.get(30, TimeUnit.SECONDS);
        System.out.println("outcome " + DataPathDirectives.outcome().get(30, TimeUnit.SECONDS));
        String printed = String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                new Object[] {new String[0]}, new String[] {String[].class.getName()}));
        System.out.println("drain-not-inlined " + printed.contains("-io/reactivecollectives/transport/algorithms/Lanes$PairedSteps$Run.drain"));
        System.out.println("epoll-loop-not-inlined " + printed.contains("-io/netty/channel/epoll/EpollIoHandler.run"));
        System.out.println("own " + printed.contains("my/Own"));
        g0.close();
        g1.close();
        store.close();
        System.exit(0);
    }
}
