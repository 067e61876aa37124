#ifndef FLOWRUN_CLCMS2_SHIM_H
#define FLOWRUN_CLCMS2_SHIM_H
#include <lcms2.h>

/* Composed macros are not imported into Swift: restate the ones FlowImaging uses as constants. */
static const cmsUInt32Number cflow_lcms_type_rgba_8 = TYPE_RGBA_8;

#endif
