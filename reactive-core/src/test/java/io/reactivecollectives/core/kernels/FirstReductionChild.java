package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.testkit.Guards;
import java.time.Duration;
import java.util.List;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A fresh JVM's first reduction, for {@link NativeKernelsLoadingTest}: installs BlockHound (with the
 * test integrations found on the class path), checks that a blocking call on a parallel thread is
 * caught, then reduces before anything loaded the native kernels, on a parallel thread
 * ({@code nonblocking}) or on the main thread ({@code blocking}). Prints one line per finding and
 * {@code OK} last; exits 1 on the first failed check.
 */
public final class FirstReductionChild {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private FirstReductionChild() {
    }

    public static void main(String[] args) {
        try {
            run(args[0]);
            System.out.println("OK");
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static void run(String mode) {
        BlockHound.install();
        String sleeping = Mono.fromCallable(() -> {
            Thread.sleep(1);
            return "slept";
        }).subscribeOn(Schedulers.parallel()).onErrorResume(e -> Mono.just(e.toString())).block(WAIT);
        check(sleeping.startsWith(BlockingOperationError.class.getName()), "BlockHound catches a sleep on a parallel thread: " + sleeping);
        Guards.drainBlockingCalls();
        check(!NativeReduceKernels.loadTried(), "nothing loaded the native kernels before the first reduction");

        if (mode.equals("nonblocking")) {
            String during = Mono.fromCallable(FirstReductionChild::reduceAndCheck)
                    .subscribeOn(Schedulers.parallel()).block(WAIT);
            System.out.println("on the parallel thread: " + during);
            ReduceKernels.loadAsync().block(WAIT);
            check(NativeReduceKernels.loadTried(), "loadAsync() settled the load");
            String after = Mono.fromCallable(FirstReductionChild::reduceAndCheck)
                    .subscribeOn(Schedulers.parallel()).block(WAIT);
            System.out.println("after loadAsync: " + after);
        } else {
            reduceAndCheck();
            check(NativeReduceKernels.loadTried(), "a reduction on a thread that may block loads the kernels itself");
        }
        System.out.println("implementation: " + ReduceKernels.implementation());
        String platform = NativeReduceKernels.platform(System.getProperty("os.name"), System.getProperty("os.arch")).orElse("none");
        System.out.println("library resource: "
                + NativeReduceKernels.class.getResource("native/" + platform + "/" + NativeReduceKernels.LIBRARY_FILE));
        List<String> blocking = Guards.blockingCalls();
        check(blocking.isEmpty(), "blocking calls on non-blocking threads: " + blocking);
    }

    /** FLOAT32 SUM of 1000 elements (more than a vector's width) through the public API; checks every element. */
    private static String reduceAndCheck() {
        int n = 1000;
        ByteBuf dst = Unpooled.directBuffer(4 * n);
        ByteBuf src = Unpooled.directBuffer(4 * n);
        try {
            for (int i = 0; i < n; i++) {
                dst.setFloatLE(4 * i, i);
                src.setFloatLE(4 * i, 0.5f * i);
            }
            ReduceKernels.reduceInto(ReduceOp.SUM, DType.FLOAT32, dst, 0, src, 0, n);
            for (int i = 0; i < n; i++) {
                if (dst.getFloatLE(4 * i) != 1.5f * i) {
                    throw new AssertionError("element " + i + " = " + dst.getFloatLE(4 * i) + ", expected " + 1.5f * i);
                }
            }
            return ReduceKernels.implementation();
        } finally {
            dst.release();
            src.release();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
        System.out.println("checked: " + what);
    }
}
