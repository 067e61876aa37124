#ifndef FLOWRUN_CJPEG_SHIM_H
#define FLOWRUN_CJPEG_SHIM_H
#include <stddef.h>
#include <turbojpeg.h>
#endif
