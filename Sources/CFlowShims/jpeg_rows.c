#include "cflow_jpeg_rows.h"

#include "jpeg_sampled_idct.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    cflow_jpeg_status *status;
} error_manager;

// libjpeg's error_exit must not return: record the message, then jump back to the setjmp below.
static void on_error(j_common_ptr info) {
    error_manager *errors = (error_manager *)info->err;
    (*info->err->format_message)(info, errors->status->message);
    longjmp(errors->jump, 1);
}

// Level -1 is a warning (corrupt data, stray bytes); keep the last one, unless an earlier one said the data
// ended early, which decides whether the image is refused. Higher levels are trace messages.
static void on_message(j_common_ptr info, int level) {
    if (level >= 0) return;
    error_manager *errors = (error_manager *)info->err;
    errors->status->warnings++;
    if (strstr(errors->status->message, "remature end")) return;
    (*info->err->format_message)(info, errors->status->message);
}

cflow_jpeg_status cflow_jpeg_decode_rows(
    const uint8_t *data, size_t size, int scale_num, int cmyk, uint8_t *out, size_t width, size_t height,
    size_t rows_per_check, cflow_jpeg_should_continue should_continue, void *context) {
    cflow_jpeg_status status = {0, "", 0};
    struct jpeg_decompress_struct info;
    error_manager errors;
    info.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = on_error;
    errors.base.emit_message = on_message;
    errors.status = &status;
    if (setjmp(errors.jump)) {
        status.status = 1;
        jpeg_destroy_decompress(&info);
        return status;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.scale_num = (unsigned int)scale_num;
    info.scale_denom = 8;
    info.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    // At scales 1/2 and 1/4, sample the blocks' low frequencies rather than box-averaging them (jpeg_sampled_idct.c).
    cflow_sampled_idct sampled;
    cflow_use_sampled_idct(&info, &sampled);
    if (info.output_width != width || info.output_height != height || info.output_components != 4) {
        snprintf(status.message, sizeof status.message, "unexpected output size %ux%u", info.output_width,
                 info.output_height);
        status.status = 1;
        jpeg_destroy_decompress(&info);
        return status;
    }
    size_t since_check = 0;
    while (info.output_scanline < info.output_height) {
        if (since_check >= rows_per_check) {
            since_check = 0;
            if (!should_continue(context, info.output_scanline)) {
                status.status = 2;
                jpeg_destroy_decompress(&info);
                return status;
            }
        }
        JSAMPROW row = out + (size_t)info.output_scanline * width * 4;
        since_check += jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return status;
}
