// Separable Gaussian kernels for `blur` and `sharpen`: plain C loops over contiguous floats that the compiler
// vectorises, built twice on x86-64 (baseline SSE2 and AVX2+FMA) and picked at run time.

#include "cflow_kernels.h"

#if defined(__x86_64__)
#define CFLOW_AVX2 __attribute__((target("avx2,fma")))
#endif

// Horizontal taps: `padded` holds `width + 2 * radius` RGBA pixels as floats (the row with its edge pixels
// repeated `radius` times on each side); out[i] = Σ_k weights[k] · padded[i + 4k] for the `4 * width` floats.
#define CFLOW_GAUSSIAN_ROW_BODY                                                                                   \
    const ptrdiff_t length = 4 * width;                                                                          \
    for (ptrdiff_t i = 0; i < length; i++) out[i] = weights[0] * padded[i];                                     \
    for (ptrdiff_t k = 1; k <= 2 * radius; k++) {                                                                \
        const float w = weights[k];                                                                              \
        const float *from = padded + 4 * k;                                                                      \
        for (ptrdiff_t i = 0; i < length; i++) out[i] += w * from[i];                                           \
    }

// Vertical taps, in chunks that stay in L1: out[i] = Σ_k weights[k] · rows[k][i].
#define CFLOW_WEIGHTED_ROWS_BODY                                                                                  \
    for (ptrdiff_t start = 0; start < length; start += 2048) {                                                   \
        const ptrdiff_t end = start + 2048 < length ? start + 2048 : length;                                     \
        for (ptrdiff_t i = start; i < end; i++) out[i] = weights[0] * rows[0][i];                               \
        for (ptrdiff_t k = 1; k < taps; k++) {                                                                   \
            const float w = weights[k];                                                                          \
            const float *from = rows[k];                                                                         \
            for (ptrdiff_t i = start; i < end; i++) out[i] += w * from[i];                                      \
        }                                                                                                        \
    }

static void gaussian_row_generic(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out) {
    CFLOW_GAUSSIAN_ROW_BODY
}

static void weighted_rows_generic(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out) {
    CFLOW_WEIGHTED_ROWS_BODY
}

#if defined(__x86_64__)
CFLOW_AVX2 static void gaussian_row_avx2(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out) {
    CFLOW_GAUSSIAN_ROW_BODY
}

CFLOW_AVX2 static void weighted_rows_avx2(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out) {
    CFLOW_WEIGHTED_ROWS_BODY
}
#endif

void cflow_gaussian_row(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out, int avx2) {
#if defined(__x86_64__)
    if (avx2) {
        gaussian_row_avx2(padded, width, weights, radius, out);
        return;
    }
#endif
    (void)avx2;
    gaussian_row_generic(padded, width, weights, radius, out);
}

void cflow_weighted_rows(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out, int avx2) {
#if defined(__x86_64__)
    if (avx2) {
        weighted_rows_avx2(rows, weights, taps, length, out);
        return;
    }
#endif
    (void)avx2;
    weighted_rows_generic(rows, weights, taps, length, out);
}
