#include "cflow_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

int cflow_has_avx2_fma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// One row of RGBA8 bytes to floats, colour premultiplied by alpha; the pixel after the row is made 0 (the last pair
// of an odd window reads it, times a zero weight).
__attribute__((target("avx2,fma"))) static inline void widen_row(const uint8_t *src, ptrdiff_t channels, float *row) {
    _mm_storeu_ps(row + channels, _mm_setzero_ps());
    ptrdiff_t i = 0;
    for (; i + 8 <= channels; i += 8) {
        __m128i bytes = _mm_loadl_epi64((const __m128i *)(src + i));
        _mm256_storeu_ps(row + i, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)));
    }
    for (; i < channels; i++) row[i] = (float)src[i];
    for (ptrdiff_t p = 0; p < channels; p += 4) {
        const float scale = row[p + 3] / 255.0f;
        row[p] *= scale;
        row[p + 1] *= scale;
        row[p + 2] *= scale;
    }
}

// The sum of 8 floats' two halves: the RGBA of one output pixel.
__attribute__((target("avx2,fma"))) static inline void store_pixel(float *out, __m256 even, __m256 odd) {
    const __m256 sum = _mm256_add_ps(even, odd);
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1)));
}

__attribute__((target("avx2,fma"))) void cflow_resample_horizontal_avx2(
    const uint8_t *source, ptrdiff_t in_width, ptrdiff_t rows, const float *weights, ptrdiff_t stride,
    const ptrdiff_t *starts, const ptrdiff_t *counts, ptrdiff_t out_width, float *row, float *middle) {
    const ptrdiff_t channels = in_width * 4;
    float *second = row + channels + 4;
    ptrdiff_t y = 0;
    // Two rows at a time: every weight loaded feeds both (the loop is bound by loads, not arithmetic). Each row's
    // sums are formed in the same order as alone, so pairing changes no result.
    for (; y + 2 <= rows; y += 2) {
        widen_row(source + y * channels, channels, row);
        widen_row(source + (y + 1) * channels, channels, second);
        float *out = middle + y * out_width * 4;
        float *out2 = out + out_width * 4;
        for (ptrdiff_t x = 0; x < out_width; x++) {
            // Two taps per step: the lower lanes hold tap t (RGBA), the upper ones tap t + 1 — adjacent pixels,
            // so one load, and adjacent splatted weights, so one more.
            const float *w = weights + x * stride * 4;
            const float *p = row + starts[x] * 4;
            const float *p2 = second + starts[x] * 4;
            const ptrdiff_t pairs = (counts[x] + 1) / 2;
            __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
            __m256 even2 = _mm256_setzero_ps(), odd2 = _mm256_setzero_ps();
            ptrdiff_t k = 0;
            for (; k + 2 <= pairs; k += 2) {
                const __m256 w0 = _mm256_loadu_ps(w + 8 * k), w1 = _mm256_loadu_ps(w + 8 * k + 8);
                even = _mm256_fmadd_ps(w0, _mm256_loadu_ps(p + 8 * k), even);
                odd = _mm256_fmadd_ps(w1, _mm256_loadu_ps(p + 8 * k + 8), odd);
                even2 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(p2 + 8 * k), even2);
                odd2 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(p2 + 8 * k + 8), odd2);
            }
            if (k < pairs) {
                const __m256 w0 = _mm256_loadu_ps(w + 8 * k);
                even = _mm256_fmadd_ps(w0, _mm256_loadu_ps(p + 8 * k), even);
                even2 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(p2 + 8 * k), even2);
            }
            store_pixel(out + 4 * x, even, odd);
            store_pixel(out2 + 4 * x, even2, odd2);
        }
    }
    for (; y < rows; y++) {
        widen_row(source + y * channels, channels, row);
        float *out = middle + y * out_width * 4;
        for (ptrdiff_t x = 0; x < out_width; x++) {
            const float *w = weights + x * stride * 4;
            const float *p = row + starts[x] * 4;
            const ptrdiff_t pairs = (counts[x] + 1) / 2;
            __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
            ptrdiff_t k = 0;
            for (; k + 2 <= pairs; k += 2) {
                even = _mm256_fmadd_ps(_mm256_loadu_ps(w + 8 * k), _mm256_loadu_ps(p + 8 * k), even);
                odd = _mm256_fmadd_ps(_mm256_loadu_ps(w + 8 * k + 8), _mm256_loadu_ps(p + 8 * k + 8), odd);
            }
            if (k < pairs) even = _mm256_fmadd_ps(_mm256_loadu_ps(w + 8 * k), _mm256_loadu_ps(p + 8 * k), even);
            store_pixel(out + 4 * x, even, odd);
        }
    }
}

__attribute__((target("avx2,fma"))) void cflow_resample_vertical_pair_avx2(
    const float *rows, ptrdiff_t row_length, ptrdiff_t taps, const float *wa, const float *wb, float *a, float *b) {
    ptrdiff_t i = 0;
    // 16 floats per sweep: four accumulators, each load feeding both output rows.
    for (; i + 16 <= row_length; i += 16) {
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
        const float *p = rows + i;
        for (ptrdiff_t t = 0; t < taps; t++, p += row_length) {
            __m256 x0 = _mm256_loadu_ps(p);
            __m256 x1 = _mm256_loadu_ps(p + 8);
            __m256 va = _mm256_broadcast_ss(wa + t);
            __m256 vb = _mm256_broadcast_ss(wb + t);
            a0 = _mm256_fmadd_ps(va, x0, a0);
            a1 = _mm256_fmadd_ps(va, x1, a1);
            b0 = _mm256_fmadd_ps(vb, x0, b0);
            b1 = _mm256_fmadd_ps(vb, x1, b1);
        }
        _mm256_storeu_ps(a + i, a0);
        _mm256_storeu_ps(a + i + 8, a1);
        _mm256_storeu_ps(b + i, b0);
        _mm256_storeu_ps(b + i + 8, b1);
    }
    for (; i < row_length; i++) {
        float sa = 0, sb = 0;
        for (ptrdiff_t t = 0; t < taps; t++) {
            sa += wa[t] * rows[t * row_length + i];
            sb += wb[t] * rows[t * row_length + i];
        }
        a[i] = sa;
        b[i] = sb;
    }
}

__attribute__((target("avx2,fma"))) void cflow_round_to_bytes_avx2(
    const float *values, ptrdiff_t count, uint8_t *bytes) {
    const __m256 low = _mm256_setzero_ps(), high = _mm256_set1_ps(255.0f), half = _mm256_set1_ps(0.5f);
    // packs/packus work within 128-bit lanes: this puts the four groups of eight back in order.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    ptrdiff_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i q[4];
        for (int j = 0; j < 4; j++) {
            const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(values + i + 8 * j), low), high);
            q[j] = _mm256_cvttps_epi32(_mm256_add_ps(v, half));
        }
        const __m256i packed = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(bytes + i), _mm256_permutevar8x32_epi32(packed, order));
    }
    for (; i < count; i++) {
        const float v = values[i] < 0 ? 0 : values[i] > 255 ? 255 : values[i];
        bytes[i] = (uint8_t)(int32_t)(v + 0.5f);
    }
}

// Eight pixels per step: each 32-bit lane holds one RGBA pixel, so masks and shifts take the channels apart and
// put them back (cheaper than the byte shuffles clang vectorises a per-channel loop into). The sums are formed as
// clang contracts the scalar tail's expression, `fma(m2, b, fma(m0, r, m1 * g)) + 0.5`, so the vector lanes and the
// tail agree exactly (checked on all 2^24 colours against a plain per-channel loop).
__attribute__((target("avx2,fma"))) void cflow_color_matrix_avx2(
    const uint8_t *restrict source, uint8_t *restrict destination, ptrdiff_t count, const float m[9]) {
    const __m256 m00 = _mm256_set1_ps(m[0]), m01 = _mm256_set1_ps(m[1]), m02 = _mm256_set1_ps(m[2]);
    const __m256 m10 = _mm256_set1_ps(m[3]), m11 = _mm256_set1_ps(m[4]), m12 = _mm256_set1_ps(m[5]);
    const __m256 m20 = _mm256_set1_ps(m[6]), m21 = _mm256_set1_ps(m[7]), m22 = _mm256_set1_ps(m[8]);
    const __m256 low = _mm256_setzero_ps(), high = _mm256_set1_ps(255.0f), half = _mm256_set1_ps(0.5f);
    const __m256i byte = _mm256_set1_epi32(0xFF);
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256i px = _mm256_loadu_si256((const __m256i *)(source + 4 * i));
        const __m256 r = _mm256_cvtepi32_ps(_mm256_and_si256(px, byte));
        const __m256 g = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(px, 8), byte));
        const __m256 b = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(px, 16), byte));
        // m0·r + m1·g + m2·b + ½ as clang contracts the scalar expression: fma(m2, b, fma(m0, r, m1·g)) + ½.
        __m256 nr = _mm256_add_ps(_mm256_fmadd_ps(m02, b, _mm256_fmadd_ps(m00, r, _mm256_mul_ps(m01, g))), half);
        __m256 ng = _mm256_add_ps(_mm256_fmadd_ps(m12, b, _mm256_fmadd_ps(m10, r, _mm256_mul_ps(m11, g))), half);
        __m256 nb = _mm256_add_ps(_mm256_fmadd_ps(m22, b, _mm256_fmadd_ps(m20, r, _mm256_mul_ps(m21, g))), half);
        const __m256i ir = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(nr, low), high));
        const __m256i ig = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(ng, low), high));
        const __m256i ib = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(nb, low), high));
        const __m256i alpha = _mm256_andnot_si256(_mm256_set1_epi32(0x00FFFFFF), px);
        const __m256i out = _mm256_or_si256(_mm256_or_si256(ir, _mm256_slli_epi32(ig, 8)),
                                            _mm256_or_si256(_mm256_slli_epi32(ib, 16), alpha));
        _mm256_storeu_si256((__m256i *)(destination + 4 * i), out);
    }
    for (; i < count; i++) {
        const float r = source[4 * i], g = source[4 * i + 1], b = source[4 * i + 2];
        const float nr = m[0] * r + m[1] * g + m[2] * b + 0.5f;
        const float ng = m[3] * r + m[4] * g + m[5] * b + 0.5f;
        const float nb = m[6] * r + m[7] * g + m[8] * b + 0.5f;
        destination[4 * i] = (uint8_t)(int32_t)(nr < 0 ? 0 : nr > 255 ? 255 : nr);
        destination[4 * i + 1] = (uint8_t)(int32_t)(ng < 0 ? 0 : ng > 255 ? 255 : ng);
        destination[4 * i + 2] = (uint8_t)(int32_t)(nb < 0 ? 0 : nb > 255 ? 255 : nb);
        destination[4 * i + 3] = source[4 * i + 3];
    }
}

#else

int cflow_has_avx2_fma(void) { return 0; }

void cflow_resample_horizontal_avx2(
    const uint8_t *source, ptrdiff_t in_width, ptrdiff_t rows, const float *weights, ptrdiff_t stride,
    const ptrdiff_t *starts, const ptrdiff_t *counts, ptrdiff_t out_width, float *row, float *middle) {}

void cflow_resample_vertical_pair_avx2(
    const float *rows, ptrdiff_t row_length, ptrdiff_t taps, const float *wa, const float *wb, float *a, float *b) {}

void cflow_color_matrix_avx2(const uint8_t *source, uint8_t *destination, ptrdiff_t count, const float m[9]) {}

void cflow_round_to_bytes_avx2(const float *values, ptrdiff_t count, uint8_t *bytes) {}

#endif
