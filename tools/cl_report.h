/* cl_report.h — what `clstencil filter` says about OpenCL calls: a failed call's message and exit
 * code, and the profiled duration of a command. */
#ifndef CLS_TOOLS_CL_REPORT_H
#define CLS_TOOLS_CL_REPORT_H

#include <clstencil.h>

/* Prints "clstencil filter: WHAT failed (OpenCL error N)"; returns EXIT_FAILURE_. */
int cl_failed(const char *what, cl_int error);
/* Milliseconds between an event's start and end (0 when profiling says nothing). */
double event_ms(cl_event event);

#endif
