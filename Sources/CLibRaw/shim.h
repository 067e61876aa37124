#ifndef FLOWRUN_CLIBRAW_SHIM_H
#define FLOWRUN_CLIBRAW_SHIM_H
#include <libraw/libraw.h>
#endif
