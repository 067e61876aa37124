#ifndef FLOWRUN_CPNG_SHIM_H
#define FLOWRUN_CPNG_SHIM_H
#include <png.h>
#include <zlib.h> /* for iCCP profiles (inflate) and the CRC of chunks FlowImaging writes */

/* Composed macros are not imported into Swift: restate the ones FlowImaging uses as constants. */
static const png_uint_32 cflow_png_image_version = PNG_IMAGE_VERSION;
static const png_uint_32 cflow_png_format_gray = PNG_FORMAT_GRAY;
static const png_uint_32 cflow_png_format_ga = PNG_FORMAT_GA;
static const png_uint_32 cflow_png_format_rgb = PNG_FORMAT_RGB;
static const png_uint_32 cflow_png_format_rgba = PNG_FORMAT_RGBA;
static const png_uint_32 cflow_png_image_flag_16bit_srgb = PNG_IMAGE_FLAG_16BIT_sRGB;

#endif
