package io.reactivecollectives.transport;

import io.reactivecollectives.core.rendezvous.HashStore;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM for {@link UnknownSettingsProcessesTest}: starts two groups of two ranks one after the
 * other (so the check at group start runs four times), closes them and prints {@code DONE}.
 */
public final class UnknownSettingsMain {

    private UnknownSettingsMain() {
    }

    /**
     * Runs the groups.
     *
     * @param args none
     * @throws Exception when a group fails
     */
    public static void main(String[] args) throws Exception {
        for (String id : new String[] {"unknown-settings-a", "unknown-settings-b"}) {
            GroupOptions o = GroupOptions.defaults().withGroupId(id);
            HashStore store = new HashStore(Duration.ofSeconds(30));
            CompletableFuture<MeshProcessGroup> first = MeshProcessGroup.connect(store, 0, 2, o).toFuture();
            MeshProcessGroup g1 = MeshProcessGroup.connect(store, 1, 2, o).block(Duration.ofSeconds(30));
            MeshProcessGroup g0 = first.get(30, TimeUnit.SECONDS);
            g0.close();
            g1.close();
            store.close();
        }
        System.out.println("DONE");
        System.exit(0);
    }
}
