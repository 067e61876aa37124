// libpng's row API for what its simplified API gets wrong, with libpng's longjmp error handling kept in C.
#ifndef CFLOW_PNG_ROWS_H
#define CFLOW_PNG_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// The outcome of `cflow_png_read_rgba8_via_rows`: 0 on success, else `message` says why.
typedef struct {
    int status;
    char message[256];
} cflow_png_status;

/// Decodes the PNG read from `file` (from its start), of `width` × `height` pixels as its header says, into RGBA8 at
/// `rgba` (`width * height * 4` bytes) through libpng's row API: every colour type expanded to 16-bit RGBA, interlacing undone by libpng,
/// colour converted from the file's gamma to sRGB when it has a gAMA chunk (`png_set_alpha_mode` with straight
/// alpha), then each 16-bit sample rounded to 8 bits as `(v * 255 + 32767) / 65535`. Used for 16-bit interlaced
/// files, which libpng 1.6.39's simplified API decodes wrongly (pnggroup/libpng#853).
cflow_png_status cflow_png_read_rgba8_via_rows(FILE *file, uint32_t width, uint32_t height, uint8_t *rgba);

#endif
