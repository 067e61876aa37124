// Fixed-point resampling of opaque RGBA8 pixels: 16-bit coefficients, 32-bit integer sums (Pillow-SIMD's scheme),
// with AVX2 versions picked at run time. Integers need no widening of a whole row to floats: the horizontal pass
// zero-extends two pixels at a time inside a register and `vpmaddwd` multiplies and adds two taps per lane.

#include "cflow_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define CFLOW_AVX2 __attribute__((target("avx2")))
#endif

static inline int16_t saturate16(int32_t v) { return v < -32768 ? -32768 : v > 32767 ? 32767 : (int16_t)v; }

static void horizontal_scalar(
    const uint8_t *row, const int16_t *coefficients, ptrdiff_t stride, const ptrdiff_t *starts,
    const ptrdiff_t *counts, ptrdiff_t out_width, int shift, int16_t *out) {
    const int32_t half = 1 << (shift - 1);
    for (ptrdiff_t x = 0; x < out_width; x++) {
        const uint8_t *p = row + 4 * starts[x];
        const int16_t *w = coefficients + x * stride;
        int32_t r = half, g = half, b = half, a = half;
        for (ptrdiff_t k = 0; k < counts[x]; k++) {
            r += w[k] * p[4 * k];
            g += w[k] * p[4 * k + 1];
            b += w[k] * p[4 * k + 2];
            a += w[k] * p[4 * k + 3];
        }
        // `>>` of a negative sum floors on every compiler this builds with (arithmetic shift).
        out[4 * x] = saturate16(r >> shift);
        out[4 * x + 1] = saturate16(g >> shift);
        out[4 * x + 2] = saturate16(b >> shift);
        out[4 * x + 3] = saturate16(a >> shift);
    }
}

static void vertical_scalar(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t taps, int shift, ptrdiff_t from, ptrdiff_t length,
    uint8_t *out) {
    const int32_t half = 1 << (shift - 1);
    for (ptrdiff_t i = from; i < length; i++) {
        int32_t sum = half;
        for (ptrdiff_t k = 0; k < taps; k++) sum += weights[k] * rows[k][i];
        sum >>= shift;
        out[i] = (uint8_t)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
    }
}

#if defined(__x86_64__)
// Four taps per step: the 16 bytes of pixels t…t+3 go to both 128-bit lanes, and one byte shuffle zero-extends
// pixels t, t+1 interleaved by channel (r0 r1 g0 g1 b0 b1 a0 a1) in the lower lane and t+2, t+3 in the upper;
// `vpmaddwd` with (w0 w1)×4 | (w2 w3)×4 leaves each lane holding the RGBA of its two taps.
CFLOW_AVX2 static void horizontal_avx2(
    const uint8_t *row, const int16_t *coefficients, ptrdiff_t stride, const ptrdiff_t *starts,
    const ptrdiff_t *counts, ptrdiff_t out_width, int shift, int16_t *out) {
    const __m256i spread = _mm256_setr_epi8(
        0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1, 8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1,
        15, -1);
    const __m256i pairs = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const __m128i half = _mm_set1_epi32(1 << (shift - 1));
    const __m128i count = _mm_cvtsi32_si128(shift);
    for (ptrdiff_t x = 0; x < out_width; x++) {
        const uint8_t *p = row + 4 * starts[x];
        const int16_t *w = coefficients + x * stride;
        __m256i sum = _mm256_setzero_si256();
        for (ptrdiff_t k = 0; k < counts[x]; k += 4) {
            const __m256i pixels = _mm256_shuffle_epi8(
                _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + 4 * k))), spread);
            const __m256i taps = _mm256_permutevar8x32_epi32(
                _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)(w + k))), pairs);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pixels, taps));
        }
        __m128i rgba = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        rgba = _mm_sra_epi32(_mm_add_epi32(rgba, half), count);
        _mm_storel_epi64((__m128i *)(out + 4 * x), _mm_packs_epi32(rgba, rgba));
    }
}

// 32 values per sweep over the window, four accumulators: rows k and k+1 interleaved (`vpunpck{l,h}wd`) times the
// pair (w_k, w_k+1) in every lane, so each `vpmaddwd` does two taps of eight values. Unpacking and packing both
// work within 128-bit lanes, so `vpackssdw` puts the values back in order and only the byte pack needs a permute.
CFLOW_AVX2 static ptrdiff_t vertical_avx2(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t taps, int shift, ptrdiff_t length, uint8_t *out) {
    const __m256i half = _mm256_set1_epi32(1 << (shift - 1));
    const __m128i count = _mm_cvtsi32_si128(shift);
    const __m256i zero = _mm256_setzero_si256();
    ptrdiff_t i = 0;
    for (; i + 32 <= length; i += 32) {
        __m256i s0 = half, s1 = half, s2 = half, s3 = half;
        ptrdiff_t k = 0;
        for (; k + 2 <= taps; k += 2) {
            const uint32_t pair = (uint16_t)weights[k] | (uint32_t)(uint16_t)weights[k + 1] << 16;
            const __m256i w = _mm256_set1_epi32((int32_t)pair);
            const __m256i a0 = _mm256_loadu_si256((const __m256i *)(rows[k] + i));
            const __m256i a1 = _mm256_loadu_si256((const __m256i *)(rows[k] + i + 16));
            const __m256i b0 = _mm256_loadu_si256((const __m256i *)(rows[k + 1] + i));
            const __m256i b1 = _mm256_loadu_si256((const __m256i *)(rows[k + 1] + i + 16));
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi16(a0, b0), w));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi16(a0, b0), w));
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_unpacklo_epi16(a1, b1), w));
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_unpackhi_epi16(a1, b1), w));
        }
        if (k < taps) {
            const __m256i w = _mm256_set1_epi32((uint16_t)weights[k]);
            const __m256i a0 = _mm256_loadu_si256((const __m256i *)(rows[k] + i));
            const __m256i a1 = _mm256_loadu_si256((const __m256i *)(rows[k] + i + 16));
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi16(a0, zero), w));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi16(a0, zero), w));
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_unpacklo_epi16(a1, zero), w));
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_unpackhi_epi16(a1, zero), w));
        }
        const __m256i v0 = _mm256_packs_epi32(_mm256_sra_epi32(s0, count), _mm256_sra_epi32(s1, count));
        const __m256i v1 = _mm256_packs_epi32(_mm256_sra_epi32(s2, count), _mm256_sra_epi32(s3, count));
        const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(v0, v1), 0xD8);
        _mm256_storeu_si256((__m256i *)(out + i), bytes);
    }
    return i;
}
#endif

void cflow_resample_fixed_row(
    const uint8_t *row, const int16_t *coefficients, ptrdiff_t stride, const ptrdiff_t *starts,
    const ptrdiff_t *counts, ptrdiff_t out_width, int shift, int16_t *out, int avx2) {
#if defined(__x86_64__)
    if (avx2) {
        horizontal_avx2(row, coefficients, stride, starts, counts, out_width, shift, out);
        return;
    }
#endif
    horizontal_scalar(row, coefficients, stride, starts, counts, out_width, shift, out);
}

void cflow_resample_fixed_rows(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t taps, int shift, ptrdiff_t length, uint8_t *out,
    int avx2) {
    ptrdiff_t done = 0;
#if defined(__x86_64__)
    if (avx2) done = vertical_avx2(rows, weights, taps, shift, length, out);
#endif
    vertical_scalar(rows, weights, taps, shift, done, length, out);
}
