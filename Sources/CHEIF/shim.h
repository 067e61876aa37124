#ifndef FLOWRUN_CHEIF_SHIM_H
#define FLOWRUN_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
