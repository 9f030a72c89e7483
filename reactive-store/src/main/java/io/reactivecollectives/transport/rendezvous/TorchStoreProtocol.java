package io.reactivecollectives.transport.rendezvous;

/**
 * Which wire protocol {@link TorchTcpStore} speaks to a PyTorch {@code TCPStore} server.
 *
 * <p>The two protocols, from PyTorch's public source ({@code torch/csrc/distributed/c10d}):
 * <ul>
 *   <li>{@link #V1}: torch 1.x ({@code TCPStore.cpp} of v1.13: {@code enum class QueryType}
 *       {@code SET, COMPARE_SET, GET, ADD, CHECK, WAIT, GETNUMKEYS, WATCH_KEY, DELETE_KEY}, bytes 0..8).
 *       A connection starts with its first query.</li>
 *   <li>{@link #V2}: torch 2.x ({@code TCPStoreBackend.hpp}, from the request validation of
 *       pytorch/pytorch#107607, August 2023): {@code VALIDATE, SET, COMPARE_SET, GET, ADD, CHECK,
 *       WAIT, GETNUMKEYS, DELETE_KEY, APPEND, MULTI_GET, MULTI_SET, CANCEL_WAIT} (bytes 0..12;
 *       later versions append {@code PING}, the queue and other queries after them). Every
 *       connection must open with {@code VALIDATE} and the {@code uint32} magic number
 *       {@code 0x3C85F7CE}: the legacy server ({@code TCPStoreBackend.cpp}) closes a connection whose
 *       first query is anything else, and the libuv server ({@code TCPStoreLibUvBackend.cpp}, the
 *       default since torch 2.4) answers nothing until it gets more bytes, then reads the held bytes
 *       as 2.x queries.</li>
 * </ul>
 */
public enum TorchStoreProtocol {
    /** The torch 1.x protocol (tested against torch 1.13). */
    V1,
    /** The torch 2.x protocol: {@code VALIDATE} first, shifted query bytes, APPEND, MULTI_GET/SET, CANCEL_WAIT. */
    V2,
    /**
     * Detect the server's protocol with {@link TorchProtocolProbe}'s probe, which no version of the
     * server reads as a change of the store, before connecting with the protocol found.
     */
    AUTO
}
