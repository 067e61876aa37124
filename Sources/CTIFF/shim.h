#ifndef FLOWRUN_CTIFF_SHIM_H
#define FLOWRUN_CTIFF_SHIM_H
#include <tiffio.h>
#endif
