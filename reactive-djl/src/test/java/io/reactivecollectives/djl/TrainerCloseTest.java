package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.ParameterList;
import ai.djl.nn.SequentialBlock;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;
import io.reactivecollectives.core.ddp.Parameter;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a trainer whose {@code initialize} was cancelled while its work still ran on the compute
 * thread (what {@code Mono.using} does when another rank fails first): the views that work makes
 * after the close are released, not left to the leak detector. Before the fix the views were
 * handed to the closed trainer and never released (a PARANOID leak in CI, now and then).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TrainerCloseTest {

    @Test
    void viewsMadeAfterACloseAreReleased() throws Exception {
        Gate gate = new Gate(TinyTask.sequential());
        try (LocalCluster cluster = LocalCluster.start(1).block(Duration.ofSeconds(30));
             Model model = Model.newInstance("closed-while-initializing")) {
            model.setBlock(gate);
            DistributedTrainer trainer = DistributedTrainer.builder(model, TinyTask.config(0, false), cluster.group(0)).build();
            Disposable running = trainer.initialize(new Shape(4, TinyTask.FEATURES)).subscribe(v -> { }, e -> { });
            assertTrue(gate.entered.await(30, TimeUnit.SECONDS), "initialize reached the views");
            running.dispose();
            trainer.close();
            gate.resume.countDown();
            assertTrue(leftTheTrainer(gate.worker), "the compute thread finished the cancelled work");
            ParameterViews views = trainer.views();
            if (views != null) {
                for (Parameter p : views.parameters()) {
                    assertEquals(0, p.value().buffer().refCnt(), "value view of " + p.name() + " released");
                    assertEquals(0, p.grad().buffer().refCnt(), "gradient view of " + p.name() + " released");
                }
            }
        }
    }

    /**
     * A step whose trainer is closed while its forward pass runs fails saying so, naming the step and
     * the rank, and the trainer then refuses the next step as closed, also naming the rank. Before,
     * the step failed with whatever the engine met first (DJL's "NDManager has been closed already",
     * or Reactor's "Scheduler unavailable"), naming neither.
     */
    @Test
    void aStepRunningWhenTheTrainerIsClosedFailsSayingSo() throws Exception {
        HeldForward held = new HeldForward(TinyTask.sequential());
        try (LocalCluster cluster = LocalCluster.start(1).block(Duration.ofSeconds(30));
             Model model = Model.newInstance("closed-while-stepping");
             NDManager data = NDManager.newBaseManager()) {
            model.setBlock(held);
            DistributedTrainer trainer = DistributedTrainer.builder(model, TinyTask.config(0, false), cluster.group(0)).build();
            trainer.initialize(new Shape(4, TinyTask.FEATURES)).block(Duration.ofSeconds(30));
            NDList[] b = TinyTask.batch(data, 0, 4);
            java.util.concurrent.CompletableFuture<StepResult> step = trainer.step(b[0], b[1]).toFuture();
            assertTrue(held.entered.await(30, TimeUnit.SECONDS), "the step reached the forward pass");
            trainer.close();
            held.resume.countDown();
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> step.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException
                    && e.getCause().getMessage().startsWith("DistributedTrainer.step on rank 0: the trainer was closed while step ran"),
                    "the step's error says the trainer was closed during it, got " + e.getCause());
            IllegalStateException next = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> trainer.step(b[0], b[1]).block(Duration.ofSeconds(30)));
            assertEquals("DistributedTrainer.step on rank 0: the trainer is closed", next.getMessage());
        }
    }

    /** The tiny model, holding its first forward pass until the test lets it go. */
    private static final class HeldForward extends AbstractBlock {
        private final SequentialBlock inner;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        HeldForward(SequentialBlock inner) {
            this.inner = addChildBlock("inner", inner);
        }

        @Override
        protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training, PairList<String, Object> params) {
            if (entered.getCount() > 0) {
                entered.countDown();
                boolean interrupted = false;
                while (true) { // the close disposes the compute scheduler, which interrupts: wait on regardless
                    try {
                        if (resume.await(30, TimeUnit.SECONDS)) {
                            break;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return inner.forward(store, inputs, training, params);
        }

        @Override
        protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... shapes) {
            inner.initialize(manager, dataType, shapes);
        }

        @Override
        public Shape[] getOutputShapes(Shape[] inputs) {
            return inner.getOutputShapes(inputs);
        }
    }

    /** Waits until {@code worker} (a pooled thread) runs nothing of this package any more. */
    private static boolean leftTheTrainer(Thread worker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean inside = false;
            for (StackTraceElement f : worker.getStackTrace()) {
                inside |= f.getClassName().startsWith(ParameterViews.class.getPackageName() + ".");
            }
            if (!inside) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    /** The tiny model, holding the first {@link ParameterViews#of} call until the test lets it go. */
    private static final class Gate extends AbstractBlock {
        private final SequentialBlock inner;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        volatile Thread worker;

        Gate(SequentialBlock inner) {
            this.inner = addChildBlock("inner", inner);
        }

        @Override
        public ParameterList getParameters() {
            boolean viewing = StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getClassName().equals(ParameterViews.class.getName())));
            if (viewing && worker == null) {
                worker = Thread.currentThread();
                entered.countDown();
                boolean interrupted = false;
                while (true) { // the close disposes the compute scheduler, which interrupts: wait on regardless
                    try {
                        if (resume.await(30, TimeUnit.SECONDS)) {
                            break;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.getParameters();
        }

        @Override
        protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training, PairList<String, Object> params) {
            return inner.forward(store, inputs, training, params);
        }

        @Override
        protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... shapes) {
            inner.initialize(manager, dataType, shapes);
        }

        @Override
        public Shape[] getOutputShapes(Shape[] inputs) {
            return inner.getOutputShapes(inputs);
        }
    }
}
