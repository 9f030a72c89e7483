/**
 * Internal: the mesh's small wire helpers that the store does not need: the marker of a frame lent
 * where the transport received it ({@link io.reactivecollectives.transport.wire.LentBuffer}), which
 * the shared-memory rings make and the mailboxes copy when they keep one, and the host:port parsing
 * of the launchers' addresses ({@link io.reactivecollectives.transport.wire.HostPorts}). What the
 * store and the mesh share (the length-prefixed decoder, the handshake MAC, the Unix-socket files)
 * is reactive-store's {@code io.reactivecollectives.store.wire}, exported to this module only.
 *
 * <p>Depends only on core, Netty and Reactor, and on no other transport package (an ArchUnit rule
 * checks it). Not a public API.
 */
package io.reactivecollectives.transport.wire;
