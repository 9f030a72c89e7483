/*
 * Thread placement for NativeAffinity: the CPUs the calling thread may run on, and binding the
 * calling thread to one of them (sched_getaffinity / sched_setaffinity on thread id 0: this thread).
 */

#include <jni.h>
#include <errno.h>
#include <sched.h>

JNIEXPORT jint JNICALL Java_io_reactivecollectives_transport_shm_NativeAffinity_affinityAbi0(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return 1;
}

JNIEXPORT jint JNICALL Java_io_reactivecollectives_transport_shm_NativeAffinity_allowedCpus0(
        JNIEnv *env, jclass cls, jintArray out) {
    (void) cls;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return -errno;
    }
    jsize cap = (*env)->GetArrayLength(env, out);
    jint n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &set)) {
            if (n < cap) {
                jint v = c;
                (*env)->SetIntArrayRegion(env, out, n, 1, &v);
            }
            n++;
        }
    }
    return n;
}

JNIEXPORT jint JNICALL Java_io_reactivecollectives_transport_shm_NativeAffinity_bindThisThread0(
        JNIEnv *env, jclass cls, jint cpu) {
    (void) env;
    (void) cls;
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        return EINVAL;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : errno;
}
