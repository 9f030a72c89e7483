package io.reactivecollectives.cuda;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** On a machine with a GPU: host-staged collectives of real CUDA tensors on 2 ranks of a LocalCluster. */
class HostStagedCudaTest {

    private static final Device CUDA0 = Device.cuda(0);

    private LocalCluster cluster;
    private final List<HostStagedProcessGroup> staged = new ArrayList<>();
    private final List<Tensor> tensors = new ArrayList<>();
    private final List<StageEvent> events = new CopyOnWriteArrayList<>();
    private CudaCopies copies;

    @BeforeEach
    void start() {
        assumeTrue(Cuda.isAvailable(), () -> "no usable GPU: " + Cuda.unavailableReason());
        copies = CudaCopies.create();
        cluster = LocalCluster.start(2).block(Duration.ofSeconds(30));
        HostStagedProcessGroup.Options opts = HostStagedProcessGroup.Options.DEFAULT
                .withChunkBytes(1 << 20).withListener(events::add);
        for (ProcessGroup g : cluster.groups()) {
            staged.add(HostStagedProcessGroup.create(g, opts));
        }
    }

    @AfterEach
    void stop() {
        tensors.forEach(Tensor::release);
        staged.forEach(HostStagedProcessGroup::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    private Tensor onDevice(Tensor host) {
        Tensor d = CudaTensors.toDevice(host, CUDA0, copies).block(Duration.ofSeconds(30));
        tensors.add(d);
        return d;
    }

    private Tensor back(Tensor dev) {
        Tensor h = CudaTensors.toHost(dev, copies).block(Duration.ofSeconds(30));
        tensors.add(h);
        return h;
    }

    private Tensor ramp(long n, float offset) {
        Tensor t = Tensor.empty(DType.FLOAT32, n);
        for (long i = 0; i < n; i++) {
            t.setDouble(i, (i % 1000) + offset);
        }
        tensors.add(t);
        return t;
    }

    @Test
    void allReduceOfCudaTensorsOnTwoRanks() {
        long n = (8L << 20) / 4 + 5; // 8 MiB and a bit: 9 chunks
        Tensor a = onDevice(ramp(n, 0));
        Tensor b = onDevice(ramp(n, 1));
        StepVerifier.create(Mono.when(staged.get(0).allReduce(a, ReduceOp.SUM), staged.get(1).allReduce(b, ReduceOp.SUM)))
                .expectComplete().verify(Duration.ofSeconds(60));
        Tensor ra = back(a);
        Tensor rb = back(b);
        for (long i = 0; i < n; i += 997) {
            assertEquals(2.0 * (i % 1000) + 1, ra.getDouble(i), "element " + i);
        }
        assertTrue(ra.contentEquals(rb));
        assertEquals(9 * 2 * 3, events.size(), "9 chunks x 2 ranks x 3 stages");
    }

    @Test
    void broadcastAndSendRecvOfCudaTensors() {
        long n = 3 << 20;
        Tensor a = onDevice(ramp(n, 5));
        Tensor b = onDevice(ramp(n, 9));
        StepVerifier.create(Mono.when(staged.get(0).broadcast(a, 0), staged.get(1).broadcast(b, 0))).expectComplete().verify(Duration.ofSeconds(60));
        assertTrue(back(b).contentEquals(back(a)), "rank 1 got rank 0's tensor");

        Tensor src = onDevice(ramp(n, 42));
        Tensor dst = onDevice(ramp(n, 0));
        StepVerifier.create(Mono.when(staged.get(0).send(src, 1, 3), staged.get(1).recv(dst, 0, 3))).expectComplete().verify(Duration.ofSeconds(60));
        assertTrue(back(dst).contentEquals(back(src)));
    }

    @Test
    void allGatherAndReduceScatterOfCudaTensors() {
        long n = (3L << 20) + 11; // 12 MiB and a bit: several chunks of 3 tensors' worth
        Tensor in0 = onDevice(ramp(n, 2));
        Tensor in1 = onDevice(ramp(n, 7));
        List<Tensor> out0 = List.of(onDevice(ramp(n, 0)), onDevice(ramp(n, 0)));
        List<Tensor> out1 = List.of(onDevice(ramp(n, 0)), onDevice(ramp(n, 0)));
        StepVerifier.create(Mono.when(staged.get(0).allGather(out0, in0), staged.get(1).allGather(out1, in1)))
                .expectComplete().verify(Duration.ofSeconds(60));
        Tensor h0 = back(in0);
        Tensor h1 = back(in1);
        for (List<Tensor> outs : List.of(out0, out1)) {
            assertTrue(back(outs.get(0)).contentEquals(h0), "slot 0 holds rank 0's input");
            assertTrue(back(outs.get(1)).contentEquals(h1), "slot 1 holds rank 1's input");
        }
        Tensor r0 = onDevice(ramp(n, 0));
        Tensor r1 = onDevice(ramp(n, 0));
        StepVerifier.create(Mono.when(staged.get(0).reduceScatter(r0, out0, ReduceOp.SUM),
                staged.get(1).reduceScatter(r1, out1, ReduceOp.SUM))).expectComplete().verify(Duration.ofSeconds(60));
        Tensor b0 = back(r0);
        Tensor b1 = back(r1);
        for (long i = 0; i < n; i += 997) {
            assertEquals(2.0 * ((i % 1000) + 2), b0.getDouble(i), "element " + i);
            assertEquals(2.0 * ((i % 1000) + 7), b1.getDouble(i), "element " + i);
        }
    }

    @Test
    void allToAllSingleWithExplicitSplitsOfCudaTensors() {
        long big = (2L << 20) + 5;  // 8 MiB and a bit: rank 0 keeps it, several chunks
        long small = 1001;
        // rank 0 sends big to itself and small to rank 1; rank 1 sends small to rank 0 and 7 to itself
        Tensor in0 = onDevice(ramp(big + small, 3));
        Tensor in1 = onDevice(ramp(small + 7, 9));
        Tensor out0 = onDevice(ramp(big + small, 0));
        Tensor out1 = onDevice(ramp(small + 7, 0));
        StepVerifier.create(Mono.when(
                        staged.get(0).allToAllSingle(out0, in0, new long[] {big, small}, new long[] {big, small}),
                        staged.get(1).allToAllSingle(out1, in1, new long[] {small, 7}, new long[] {small, 7})))
                .expectComplete().verify(Duration.ofSeconds(60));
        Tensor h0 = back(out0);
        Tensor h1 = back(out1);
        for (long i = 0; i < big; i += 991) {
            assertEquals((i % 1000) + 3, h0.getDouble(i), "rank 0 kept element " + i);
        }
        for (long i = 0; i < small; i++) {
            assertEquals((i % 1000) + 9, h0.getDouble(big + i), "rank 0 got rank 1's element " + i);
            assertEquals(((big + i) % 1000) + 3, h1.getDouble(i), "rank 1 got rank 0's element " + i);
        }
        for (long i = 0; i < 7; i++) {
            assertEquals(((small + i) % 1000) + 9, h1.getDouble(small + i), "rank 1 kept element " + i);
        }
    }
}
