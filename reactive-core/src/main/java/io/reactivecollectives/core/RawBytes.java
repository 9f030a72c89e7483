package io.reactivecollectives.core;

import java.io.IOException;

/**
 * A codec whose encoding of a value is an array it already has ({@link Codec#bytes()}, keyed runs):
 * the object collectives lend that array to the call instead of copying it through
 * {@link Codec#encode}.
 */
interface RawBytes {

    /** The value's bytes, not copied. */
    byte[] bytesOf(Object value) throws IOException;
}
