// C for what Swift cannot do: libraries whose errors longjmp (libpng's and libjpeg's row APIs), and a stdio
// stream whose reads can be stopped (glibc's fopencookie).
#ifndef CFLOW_SHIMS_H
#define CFLOW_SHIMS_H
#include "cflow_jpeg_rows.h"
#include "cflow_png_rows.h"
#include "cflow_checked_stream.h"
#include "cflow_tiff.h"
#endif
