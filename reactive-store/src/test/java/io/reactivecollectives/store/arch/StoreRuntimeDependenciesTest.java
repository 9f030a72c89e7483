package io.reactivecollectives.store.arch;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What depending on reactive-store does not bring: the transport (the mesh, the process groups),
 * the command-line parser (the store command is reactive-tools') and Netty's proxy and HTTP codecs
 * (the store's clients connect directly). This module's tests run on that class path, so every store
 * test passing is the proof that the store needs none of them.
 */
class StoreRuntimeDependenciesTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "io.reactivecollectives.transport.MeshProcessGroup",
            "io.reactivecollectives.transport.ProcessGroups",
            "io.reactivecollectives.transport.mesh.MeshSockets",
            "io.reactivecollectives.transport.settings.TransportSettings",
            "io.reactivecollectives.transport.wire.LentBuffer",
            "picocli.CommandLine",
            "io.netty.handler.proxy.ProxyHandler",
            "io.netty.handler.codec.http.HttpHeaders",
            "io.netty.handler.codec.socksx.SocksMessage",
    })
    void notOnTheClassPath(String className) {
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName(className, false, StoreRuntimeDependenciesTest.class.getClassLoader()),
                className + " is on reactive-store's class path");
    }
}
