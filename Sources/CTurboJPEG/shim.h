#ifndef FLOWRUN_CTURBOJPEG_SHIM_H
#define FLOWRUN_CTURBOJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <jconfig.h>
#include <turbojpeg.h>

/* The libjpeg-turbo version built against, as 1002003 for 1.2.3 (a bare macro, not imported into Swift). */
static const int cflow_turbojpeg_version = LIBJPEG_TURBO_VERSION_NUMBER;
#endif
