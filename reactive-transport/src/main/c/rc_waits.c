/*
 * Futex waits and wakes for NativeWaits: a 32-bit word in a MAP_SHARED mapping, waited on without
 * FUTEX_PRIVATE_FLAG so that processes mapping the same file wake each other.
 */

#include <jni.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

JNIEXPORT jint JNICALL Java_io_reactivecollectives_transport_shm_NativeWaits_waitsAbi0(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return 1;
}

JNIEXPORT jint JNICALL Java_io_reactivecollectives_transport_shm_NativeWaits_futexWait0(
        JNIEnv *env, jclass cls, jlong address, jint expected, jlong timeout_nanos) {
    (void) env;
    (void) cls;
    struct timespec ts;
    ts.tv_sec = (time_t) (timeout_nanos / 1000000000LL);
    ts.tv_nsec = (long) (timeout_nanos % 1000000000LL);
    long r = syscall(SYS_futex, (int *) (intptr_t) address, FUTEX_WAIT, (int) expected,
                     timeout_nanos >= 0 ? &ts : NULL, NULL, 0);
    return r == 0 ? 0 : errno;
}

JNIEXPORT jint JNICALL Java_io_reactivecollectives_transport_shm_NativeWaits_futexWake0(
        JNIEnv *env, jclass cls, jlong address, jint count) {
    (void) env;
    (void) cls;
    long r = syscall(SYS_futex, (int *) (intptr_t) address, FUTEX_WAKE, (int) count, NULL, NULL, 0);
    return r >= 0 ? (jint) r : -errno;
}
