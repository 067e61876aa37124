#include "jpeg_sampled_idct.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// libjpeg-turbo's 4×4 IDCT (jidctred.c, the one TurboJPEG and `scale_num = 4` use) equals decoding the block at
// full size and averaging each 2×2 square: a box filter, which attenuates the detail a thumbnail keeps (a
// cosine of 3/16 cycles per pixel by 17 %). Dense photos decoded that way and then resized with Lanczos lose
// 43–45 dB against the full decode. This one evaluates the block's low 4×4 frequencies at the centres of those
// squares instead: the same picture, band-limited but not blurred (48.6 dB and more on the benchmark photos).
//
// libjpeg has no public hook for the IDCT, but its per-component method table (`struct jpeg_inverse_dct` in
// jpegint.h, unchanged from IJG 6b to libjpeg-turbo 3) is reachable from `info->idct` and is filled by
// `jpeg_start_decompress`; the method's signature is libjpeg's `inverse_DCT_method_ptr`.
typedef void (*idct_method)(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);
struct idct_methods {
    void (*start_pass)(j_decompress_ptr);
    idct_method inverse_DCT[MAX_COMPONENTS];
};

// basis[m][k] = C(k) · cos((2m + 1) k π / 8) / 2, C(0) = 1/√2, else 1: row m of the 4-point sampling of the
// 8-point IDCT, whose output pixel x is Σ_k C(k) F(k) cos((2x + 1) k π / 16) / 2, at x = 2m + ½. `columns` is
// its transpose, `splats` each entry repeated four times (the SIMD loop's operands).
static float basis[4][4];
static float columns[4][4] __attribute__((aligned(16)));
static float splats[4][4][4] __attribute__((aligned(16)));

static void make_basis(void) {
    for (int m = 0; m < 4; m++)
        for (int k = 0; k < 4; k++) {
            const float value = (float)((k == 0 ? sqrt(0.5) : 1.0) * cos((2 * m + 1) * k * M_PI / 8) / 2);
            basis[m][k] = value;
            columns[k][m] = value;
            for (int lane = 0; lane < 4; lane++) splats[m][k][lane] = value;
        }
}

// The component's dequantization factors for its low 4×4 coefficients (row-major), refreshed when libjpeg latched
// another table for it (a multi-scan file latches each component's table at its first scan).
static const float *dequantizer(cflow_sampled_idct *state, const jpeg_component_info *component) {
    const int index = component->component_index;
    const JQUANT_TBL *table = component->quant_table;
    float *factors = state->dequantize[index];
    if (state->source[index] != table) {
        state->source[index] = table;
        for (int u = 0; u < 4; u++)
            for (int v = 0; v < 4; v++) factors[u * 4 + v] = table ? (float)table->quantval[u * 8 + v] : 0;
    }
    return factors;
}

static void sampled_idct_4x4(j_decompress_ptr info, jpeg_component_info *component, JCOEFPTR block,
                             JSAMPARRAY output, JDIMENSION column) {
    const float *q = dequantizer((cflow_sampled_idct *)info->client_data, component);
#if defined(__SSE2__)
    // x[u] = row u of the dequantized low coefficients; z[m] = Σ_u basis[m][u] · x[u] (the vertical pass);
    // pixel (m, n) = Σ_v z[m][v] · basis[n][v] + 128, rounded and clamped.
    __m128 x[4];
    for (int u = 0; u < 4; u++) {
        const __m128i c = _mm_loadl_epi64((const __m128i *)(block + u * 8));
        const __m128 f = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(c, c), 16));
        x[u] = _mm_mul_ps(f, _mm_loadu_ps(q + u * 4));
    }
    __m128i rows[4];
    for (int m = 0; m < 4; m++) {
        __m128 z = _mm_mul_ps(_mm_load_ps(splats[m][0]), x[0]);
        z = _mm_add_ps(z, _mm_mul_ps(_mm_load_ps(splats[m][1]), x[1]));
        z = _mm_add_ps(z, _mm_mul_ps(_mm_load_ps(splats[m][2]), x[2]));
        z = _mm_add_ps(z, _mm_mul_ps(_mm_load_ps(splats[m][3]), x[3]));
        __m128 p = _mm_set1_ps(128.5f);
        p = _mm_add_ps(p, _mm_mul_ps(_mm_shuffle_ps(z, z, 0x00), _mm_load_ps(columns[0])));
        p = _mm_add_ps(p, _mm_mul_ps(_mm_shuffle_ps(z, z, 0x55), _mm_load_ps(columns[1])));
        p = _mm_add_ps(p, _mm_mul_ps(_mm_shuffle_ps(z, z, 0xAA), _mm_load_ps(columns[2])));
        p = _mm_add_ps(p, _mm_mul_ps(_mm_shuffle_ps(z, z, 0xFF), _mm_load_ps(columns[3])));
        p = _mm_min_ps(_mm_max_ps(p, _mm_setzero_ps()), _mm_set1_ps(255.0f));
        rows[m] = _mm_cvttps_epi32(p);
    }
    const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(rows[0], rows[1]), _mm_packs_epi32(rows[2], rows[3]));
    uint8_t pixels[16];
    _mm_storeu_si128((__m128i *)pixels, bytes);
    for (int m = 0; m < 4; m++) memcpy(output[m] + column, pixels + 4 * m, 4);
#else
    float z[4][4];
    for (int m = 0; m < 4; m++)
        for (int v = 0; v < 4; v++) {
            float s = 0;
            for (int u = 0; u < 4; u++) s += basis[m][u] * (float)block[u * 8 + v] * q[u * 4 + v];
            z[m][v] = s;
        }
    for (int m = 0; m < 4; m++)
        for (int n = 0; n < 4; n++) {
            float p = 128.5f;
            for (int v = 0; v < 4; v++) p += z[m][v] * basis[n][v];
            output[m][column + n] = (JSAMPLE)(p < 0 ? 0 : p > 255 ? 255 : (int)p);
        }
#endif
}

void cflow_use_sampled_idct(j_decompress_ptr info, cflow_sampled_idct *state) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_basis);
    memset(state, 0, sizeof *state);
    info->client_data = state;
    struct idct_methods *methods = (struct idct_methods *)info->idct;
    for (int ci = 0; ci < info->num_components; ci++)
        if (info->comp_info[ci].DCT_scaled_size == 4) methods->inverse_DCT[ci] = sampled_idct_4x4;
}
