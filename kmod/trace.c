// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: instantiates the tracepoints declared in wsx_trace.h.
 */
#define CREATE_TRACE_POINTS
#include "wsx_trace.h"
