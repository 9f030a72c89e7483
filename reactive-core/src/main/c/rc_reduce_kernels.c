/*
 * Reactive Collectives native reduction kernels: dst[i] = op(dst[i], src[i]) over off-heap memory,
 * called through JNI by io.reactivecollectives.core.kernels.NativeReduceKernels.
 *
 * Same results as the Java kernels (ReduceKernels.ArrayKernels), element for element:
 *  - integers wrap on overflow (computed in unsigned arithmetic, where overflow is defined in C);
 *  - UINT8 MIN/MAX compare unsigned;
 *  - float MIN/MAX are Java's Math.min/Math.max: NaN if either input is NaN, -0.0 below 0.0.
 *  - FLOAT16 and BFLOAT16 are computed in float32 and rounded to nearest-even, as HalfFloats does
 *    (FLOAT16 through the F16C/AVX-512 conversion instructions where the CPU has them).
 * AVG and PREMUL_SUM arrive here as SUM (their scaling is applied once, before and after, in Java).
 * BOOL stays in Java: reduce0() answers 0 for it and the caller falls back.
 *
 * Every loop is compiled for AVX-512, AVX2 and baseline x86-64 (gcc's target_clones): the loader
 * picks the widest the CPU has, once, when the library is loaded. Other architectures get one
 * build at the compiler's default level.
 *
 * Codes: op and dtype are the ordinals of ReduceOp.Kind and DType, checked against the Java enums
 * by NativeReduceKernelsTest.
 */
#include <jni.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RC_CLONES
#endif

enum { OP_SUM = 0, OP_AVG = 1, OP_PRODUCT = 2, OP_MIN = 3, OP_MAX = 4, OP_BAND = 5, OP_BOR = 6,
       OP_BXOR = 7, OP_PREMUL_SUM = 8 };
enum { DT_BOOL = 0, DT_UINT8 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_INT64 = 4, DT_FLOAT16 = 5,
       DT_BFLOAT16 = 6, DT_FLOAT32 = 7, DT_FLOAT64 = 8 };

/* Integer loops: T is the stored type, U its unsigned twin (wrapping add and multiply). */
#define INT_KERNELS(NAME, T, U)                                                                     \
    RC_CLONES static void NAME##_sum(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) d[i] = (T) ((U) d[i] + (U) s[i]);                           \
    }                                                                                               \
    RC_CLONES static void NAME##_prod(T *d, const T *s, int64_t n) {                                \
        for (int64_t i = 0; i < n; i++) d[i] = (T) ((U) d[i] * (U) s[i]);                           \
    }                                                                                               \
    RC_CLONES static void NAME##_min(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) d[i] = s[i] < d[i] ? s[i] : d[i];                           \
    }                                                                                               \
    RC_CLONES static void NAME##_max(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) d[i] = s[i] > d[i] ? s[i] : d[i];                           \
    }                                                                                               \
    RC_CLONES static void NAME##_and(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) d[i] &= s[i];                                               \
    }                                                                                               \
    RC_CLONES static void NAME##_or(T *d, const T *s, int64_t n) {                                  \
        for (int64_t i = 0; i < n; i++) d[i] |= s[i];                                               \
    }                                                                                               \
    RC_CLONES static void NAME##_xor(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) d[i] ^= s[i];                                               \
    }                                                                                               \
    static int NAME##_reduce(int op, T *d, const T *s, int64_t n) {                                 \
        switch (op) {                                                                               \
        case OP_SUM: case OP_AVG: NAME##_sum(d, s, n); return 1;                                    \
        case OP_PRODUCT: NAME##_prod(d, s, n); return 1;                                            \
        case OP_MIN: NAME##_min(d, s, n); return 1;                                                 \
        case OP_MAX: NAME##_max(d, s, n); return 1;                                                 \
        case OP_BAND: NAME##_and(d, s, n); return 1;                                                \
        case OP_BOR: NAME##_or(d, s, n); return 1;                                                  \
        case OP_BXOR: NAME##_xor(d, s, n); return 1;                                                \
        default: return 0;                                                                          \
        }                                                                                           \
    }

INT_KERNELS(u8, uint8_t, uint8_t)
INT_KERNELS(i8, int8_t, uint8_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)

/*
 * Floating loops. MIN is Java's Math.min(a, b) with a = dst, b = src: a if a is NaN; b if both are
 * zeros and b is -0.0; otherwise a <= b ? a : b (which gives b, the NaN, when only b is NaN).
 * MAX likewise with a >= b, and b when both are zeros and a is -0.0.
 */
#define FLOAT_KERNELS(NAME, T)                                                                      \
    RC_CLONES static void NAME##_sum(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) d[i] += s[i];                                               \
    }                                                                                               \
    RC_CLONES static void NAME##_prod(T *d, const T *s, int64_t n) {                                \
        for (int64_t i = 0; i < n; i++) d[i] *= s[i];                                               \
    }                                                                                               \
    RC_CLONES static void NAME##_min(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) {                                                           \
            T a = d[i], b = s[i];                                                                   \
            T r = a <= b ? a : b;                                                                   \
            if (a == 0 && b == 0 && signbit(b)) r = b;                                              \
            d[i] = a != a ? a : r;                                                                  \
        }                                                                                           \
    }                                                                                               \
    RC_CLONES static void NAME##_max(T *d, const T *s, int64_t n) {                                 \
        for (int64_t i = 0; i < n; i++) {                                                           \
            T a = d[i], b = s[i];                                                                   \
            T r = a >= b ? a : b;                                                                   \
            if (a == 0 && b == 0 && signbit(a)) r = b;                                              \
            d[i] = a != a ? a : r;                                                                  \
        }                                                                                           \
    }                                                                                               \
    static int NAME##_reduce(int op, T *d, const T *s, int64_t n) {                                 \
        switch (op) {                                                                               \
        case OP_SUM: case OP_AVG: case OP_PREMUL_SUM: NAME##_sum(d, s, n); return 1;                \
        case OP_PRODUCT: NAME##_prod(d, s, n); return 1;                                            \
        case OP_MIN: NAME##_min(d, s, n); return 1;                                                 \
        case OP_MAX: NAME##_max(d, s, n); return 1;                                                 \
        default: return 0;                                                                          \
        }                                                                                           \
    }

FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)


/*
 * FLOAT16 and BFLOAT16: blocks of HALF_BLOCK elements are widened to float32 on the stack, reduced
 * by the float32 kernel above (so MIN/MAX keep Java's NaN and signed-zero rules) and narrowed back
 * with round to nearest-even. Widening is exact; float32 then 16 bits is the same double rounding
 * as HalfFloats.floatToHalf(halfToFloat(a) + halfToFloat(b)).
 */
#define HALF_BLOCK 1024

static inline float bits_to_float(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

static inline uint32_t float_to_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

/* binary16 -> float32, exact (the portable form of HalfFloats.halfToFloat). */
static float half_to_float_scalar(uint16_t h) {
    uint32_t sign = (uint32_t) (h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0) return bits_to_float(sign);
        float v = (float) mant * 0x1p-24f;
        return sign ? -v : v;
    }
    return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
}

/* float32 -> binary16, round to nearest-even (the portable form of HalfFloats.floatToHalf). */
static uint16_t float_to_half_scalar(float f) {
    uint32_t x = float_to_bits(f);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t) ((x >> 23) & 0xff);
    uint32_t mant = x & 0x7fffff;
    if (exp == 0xff) return (uint16_t) (sign | 0x7c00 | (mant != 0 ? 0x200 | (mant >> 13) : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 0x1f) return (uint16_t) (sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t) sign;
        uint32_t m = mant | 0x800000;
        int shift = 14 - e;
        uint32_t half = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) half++;
        return (uint16_t) (sign | half);
    }
    uint32_t half = ((uint32_t) e << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++;
    return (uint16_t) (sign | half);
}

static void halves_to_floats_portable(const uint16_t *h, float *f, int64_t n) {
    for (int64_t i = 0; i < n; i++) f[i] = half_to_float_scalar(h[i]);
}

static void floats_to_halves_portable(const float *f, uint16_t *h, int64_t n) {
    for (int64_t i = 0; i < n; i++) h[i] = float_to_half_scalar(f[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void halves_to_floats_avx512(const uint16_t *h, float *f, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(f + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (h + i))));
    }
    halves_to_floats_portable(h + i, f + i, n - i);
}

__attribute__((target("avx512f"))) static void floats_to_halves_avx512(const float *f, uint16_t *h, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256((__m256i *) (h + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    floats_to_halves_portable(f + i, h + i, n - i);
}

__attribute__((target("avx,f16c"))) static void halves_to_floats_f16c(const uint16_t *h, float *f, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (h + i))));
    }
    halves_to_floats_portable(h + i, f + i, n - i);
}

__attribute__((target("avx,f16c"))) static void floats_to_halves_f16c(const float *f, uint16_t *h, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm_storeu_si128((__m128i *) (h + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    floats_to_halves_portable(f + i, h + i, n - i);
}
#endif

typedef void (*halves_to_floats_fn)(const uint16_t *, float *, int64_t);
typedef void (*floats_to_halves_fn)(const float *, uint16_t *, int64_t);
static halves_to_floats_fn halves_to_floats = halves_to_floats_portable;
static floats_to_halves_fn floats_to_halves = floats_to_halves_portable;
static const char *half_conversions = "portable";

/*
 * Switches to the FLOAT16 conversions named "avx512f", "f16c" or "portable"; 0 (and no change) when
 * this CPU or build lacks them. Not thread-safe against running reductions: called at load, and by
 * tests to cover every form on one machine.
 */
static int use_half_conversions(const char *name) {
    if (strcmp(name, "portable") == 0) {
        halves_to_floats = halves_to_floats_portable;
        floats_to_halves = floats_to_halves_portable;
        half_conversions = "portable";
        return 1;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (strcmp(name, "avx512f") == 0 && __builtin_cpu_supports("avx512f")) {
        halves_to_floats = halves_to_floats_avx512;
        floats_to_halves = floats_to_halves_avx512;
        half_conversions = "avx512f";
        return 1;
    }
    if (strcmp(name, "f16c") == 0 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c")) {
        halves_to_floats = halves_to_floats_f16c;
        floats_to_halves = floats_to_halves_f16c;
        half_conversions = "f16c";
        return 1;
    }
#endif
    return 0;
}

/* Picks the widest FLOAT16 conversions this CPU has; run once, when the library is loaded. */
static void choose_half_conversions(void) {
    if (!use_half_conversions("avx512f") && !use_half_conversions("f16c")) {
        use_half_conversions("portable");
    }
}

/* bfloat16 <-> float32: a shift, and HalfFloats.floatToBfloat16's rounding (NaN stays a quiet NaN). */
RC_CLONES static void bf16s_to_floats(const uint16_t *h, float *f, int64_t n) {
    for (int64_t i = 0; i < n; i++) f[i] = bits_to_float((uint32_t) h[i] << 16);
}

RC_CLONES static void floats_to_bf16s(const float *f, uint16_t *h, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t x = float_to_bits(f[i]);
        uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1)) >> 16;
        uint32_t nan = (x >> 16) | 0x40;
        h[i] = (uint16_t) ((x & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
    }
}

static int half_reduce(int op, int bfloat, uint16_t *d, const uint16_t *s, int64_t n) {
    if (op != OP_SUM && op != OP_AVG && op != OP_PREMUL_SUM && op != OP_PRODUCT && op != OP_MIN && op != OP_MAX) {
        return 0;
    }
    halves_to_floats_fn widen = bfloat ? bf16s_to_floats : halves_to_floats;
    floats_to_halves_fn narrow = bfloat ? floats_to_bf16s : floats_to_halves;
    float a[HALF_BLOCK], b[HALF_BLOCK];
    for (int64_t off = 0; off < n; off += HALF_BLOCK) {
        int64_t m = n - off < HALF_BLOCK ? n - off : HALF_BLOCK;
        widen(d + off, a, m);
        widen(s + off, b, m);
        f32_reduce(op, a, b, m);
        narrow(a, d + off, m);
    }
    return 1;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void) vm;
    (void) reserved;
    choose_half_conversions();
    return JNI_VERSION_1_8;
}

/*
 * Class:     io_reactivecollectives_core_kernels_NativeReduceKernels
 * Method:    reduce0
 * Returns 1 when the pair was reduced here, 0 when it is left to the Java kernels.
 * dst == src (the op applied to each element with itself) is allowed: the pointers are not
 * declared restrict, so gcc checks for overlap at run time and takes its scalar loop when they meet.
 */
JNIEXPORT jint JNICALL Java_io_reactivecollectives_core_kernels_NativeReduceKernels_reduce0(
        JNIEnv *env, jclass cls, jint op, jint dtype, jlong dst, jlong src, jlong count) {
    (void) env;
    (void) cls;
    void *d = (void *) (intptr_t) dst;
    const void *s = (const void *) (intptr_t) src;
    switch (dtype) {
    case DT_UINT8: return u8_reduce(op, (uint8_t *) d, (const uint8_t *) s, count);
    case DT_INT8: return i8_reduce(op, (int8_t *) d, (const int8_t *) s, count);
    case DT_INT32: return i32_reduce(op, (int32_t *) d, (const int32_t *) s, count);
    case DT_INT64: return i64_reduce(op, (int64_t *) d, (const int64_t *) s, count);
    case DT_FLOAT16: return half_reduce(op, 0, (uint16_t *) d, (const uint16_t *) s, count);
    case DT_BFLOAT16: return half_reduce(op, 1, (uint16_t *) d, (const uint16_t *) s, count);
    case DT_FLOAT32: return f32_reduce(op, (float *) d, (const float *) s, count);
    case DT_FLOAT64: return f64_reduce(op, (double *) d, (const double *) s, count);
    default: return 0;
    }
}

/* The ABI version this library implements; NativeReduceKernels refuses a library that differs. */
JNIEXPORT jint JNICALL Java_io_reactivecollectives_core_kernels_NativeReduceKernels_abiVersion0(
        JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return 3;
}

/* The FLOAT16 conversions chosen for this CPU ("avx512f", "f16c" or "portable"), for diagnostics. */
JNIEXPORT jstring JNICALL Java_io_reactivecollectives_core_kernels_NativeReduceKernels_halfConversions0(
        JNIEnv *env, jclass cls) {
    (void) cls;
    return (*env)->NewStringUTF(env, half_conversions);
}

/* Tests only: use_half_conversions(name); JNI_TRUE when switched. */
JNIEXPORT jboolean JNICALL Java_io_reactivecollectives_core_kernels_NativeReduceKernels_useHalfConversions0(
        JNIEnv *env, jclass cls, jstring name) {
    (void) cls;
    const char *chars = (*env)->GetStringUTFChars(env, name, NULL);
    if (chars == NULL) return JNI_FALSE;
    int ok = use_half_conversions(chars);
    (*env)->ReleaseStringUTFChars(env, name, chars);
    return ok ? JNI_TRUE : JNI_FALSE;
}
