package io.reactivecollectives.spark;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

import java.io.Serializable;
import java.util.Iterator;
import java.util.Objects;

import static scala.jdk.javaapi.CollectionConverters.asJava;
import static scala.jdk.javaapi.CollectionConverters.asScala;

/**
 * {@code rdd.barrier().mapPartitions(...)} for Java: Spark's {@code JavaRDD} has no
 * {@code barrier()}, and its Scala {@code RDDBarrier} takes a Scala function and a class tag.
 */
public final class BarrierRdds {

    private BarrierRdds() {
    }

    /**
     * Runs {@code f} on every partition of {@code rdd} as one barrier stage: all its tasks start
     * together (or none does), and when one fails Spark fails them all. Inside {@code f},
     * {@link BarrierProcessGroups#connect} gives the task's rank of the stage's group. First checks,
     * on the driver, that the stage can run as a barrier stage ({@link BarrierStages#requireRunnable}).
     *
     * @param rdd the partitions, one per rank
     * @param f   what each task computes from its partition (it may throw: the task then fails with it)
     * @param <T> the element type of {@code rdd}
     * @param <R> the element type of the result
     * @return the barrier stage's result (lazy, as every RDD)
     * @throws IllegalStateException when the stage cannot run as a barrier stage (dynamic allocation,
     *                               fewer task slots than partitions on a local master)
     */
    public static <T, R> JavaRDD<R> mapPartitions(JavaRDD<T> rdd, FlatMapFunction<Iterator<T>, R> f) {
        Objects.requireNonNull(rdd, "rdd");
        Objects.requireNonNull(f, "f");
        BarrierStages.requireRunnable(rdd.context().getConf(), rdd.getNumPartitions());
        @SuppressWarnings("unchecked")
        ClassTag<R> tag = (ClassTag<R>) (ClassTag<?>) ClassTag$.MODULE$.AnyRef();
        RDD<R> out = rdd.rdd().barrier().mapPartitions(new PartitionFunction<>(f), false, tag);
        return JavaRDD.fromRDD(out, tag);
    }

    /** The user's function as the serializable Scala function Spark ships to the executors. */
    static final class PartitionFunction<T, R> extends AbstractFunction1<scala.collection.Iterator<T>, scala.collection.Iterator<R>>
            implements Serializable {

        private static final long serialVersionUID = 1L;

        private final FlatMapFunction<Iterator<T>, R> f;

        PartitionFunction(FlatMapFunction<Iterator<T>, R> f) {
            this.f = f;
        }

        @Override
        public scala.collection.Iterator<R> apply(scala.collection.Iterator<T> partition) {
            try {
                return asScala(f.call(asJava(partition)));
            } catch (Exception e) {
                throw BarrierRdds.<RuntimeException>rethrow(e);
            }
        }
    }

    /** Throws {@code e} as it is (checked or not), so that the task fails with the user's own exception. */
    @SuppressWarnings("unchecked")
    private static <E extends Exception> E rethrow(Exception e) throws E {
        throw (E) e;
    }
}
