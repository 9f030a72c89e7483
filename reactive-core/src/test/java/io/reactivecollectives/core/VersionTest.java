package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The version is Maven's project version, filtered into a resource at build time. */
class VersionTest {

    @Test
    void isTheProjectVersion() {
        assertTrue(Version.get().matches("\\d+\\.\\d+\\.\\d+.*"), Version.get());
    }
}
