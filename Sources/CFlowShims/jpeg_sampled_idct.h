// The reduced-size IDCT that samples a block's low frequencies rather than box-averaging its pixels.
#ifndef CFLOW_JPEG_SAMPLED_IDCT_H
#define CFLOW_JPEG_SAMPLED_IDCT_H

#include <stddef.h>
#include <stdio.h>

#include <jpeglib.h>

/// What the sampled IDCT keeps for one decode: each component's quantization table as floats, for the low 4×4
/// coefficients it reads, and the table they were made from.
typedef struct {
    const JQUANT_TBL *source[MAX_COMPONENTS];
    float dequantize[MAX_COMPONENTS][16];
} cflow_sampled_idct;

/// Call after `jpeg_start_decompress`: every component libjpeg decodes at 4×4 or 2×2 pixels per block (scale 1/2
/// or 1/4) gets the sampled IDCT instead. Uses `info->client_data` for `state`, which must outlive the decode.
void cflow_use_sampled_idct(j_decompress_ptr info, cflow_sampled_idct *state);

#endif
