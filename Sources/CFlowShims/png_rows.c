#include "cflow_png_rows.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libpng's error callback must not return: record the message, then jump back to the setjmp below.
static void on_error(png_structp png, png_const_charp message) {
    cflow_png_status *status = png_get_error_ptr(png);
    snprintf(status->message, sizeof status->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

cflow_png_status cflow_png_read_rgba8_via_rows(FILE *file, uint32_t width, uint32_t height, uint8_t *rgba) {
    cflow_png_status status = {0, ""};
    // Volatile: assigned after setjmp and read after a longjmp back to it.
    uint16_t *volatile samples = NULL;
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &status, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(&png, NULL, NULL);
        status.status = 1;
        snprintf(status.message, sizeof status.message, "out of memory");
        return status;
    }
    if (setjmp(png_jmpbuf(png))) {
        status.status = 1;
        free(samples);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return status;
    }
    png_init_io(png, file);
    png_read_info(png, info);
    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height)
        png_error(png, "the header changed between reads");
    png_set_expand(png);
    png_set_expand_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFFFF, PNG_FILLER_AFTER);
    png_set_alpha_mode(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 8) png_error(png, "unexpected row layout after expansion");
    samples = malloc((size_t)width * height * 8);
    rows = malloc(sizeof(png_bytep) * height);
    if (!samples || !rows) png_error(png, "out of memory");
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)samples + (size_t)y * width * 8;
    png_read_image(png, rows);
    const uint8_t *bytes = (const uint8_t *)samples;
    for (size_t i = 0, count = (size_t)width * height * 4; i < count; i++) {
        const uint32_t v = (uint32_t)bytes[2 * i] << 8 | bytes[2 * i + 1];  // big-endian, as PNG stores it
        rgba[i] = (uint8_t)((v * 255 + 32767) / 65535);
    }
    free(samples);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return status;
}
