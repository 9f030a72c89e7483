package io.reactivecollectives.transport.arch;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What depending on reactive-transport does not bring: the command-line parser (the tools are in
 * reactive-tools) and Netty's proxy and HTTP codecs (the mesh and the store connect directly). This
 * module's tests run on that class path, so every transport test passing is the proof that they
 * are not needed.
 */
class RuntimeDependenciesTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "picocli.CommandLine",
            "io.netty.handler.proxy.ProxyHandler",
            "io.netty.handler.codec.http.HttpHeaders",
            "io.netty.handler.codec.socksx.SocksMessage",
            "io.netty.handler.codec.compression.ZlibEncoder",
    })
    void notOnTheClassPath(String className) {
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName(className, false, RuntimeDependenciesTest.class.getClassLoader()),
                className + " is on reactive-transport's class path");
    }
}
