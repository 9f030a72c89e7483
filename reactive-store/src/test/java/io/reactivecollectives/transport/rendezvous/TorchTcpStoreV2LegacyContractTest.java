package io.reactivecollectives.transport.rendezvous;

/** {@link TorchTcpStoreV2ContractTest} against the legacy flavor of torch's 2.x server. */
class TorchTcpStoreV2LegacyContractTest extends TorchTcpStoreV2ContractTest {
    @Override
    protected FakeTorch2Server.Flavor flavor() {
        return FakeTorch2Server.Flavor.LEGACY;
    }
}
