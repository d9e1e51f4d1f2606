/* cl_report.c — OpenCL failures and profiled durations for `clstencil filter` (cl_report.h). */
#include "cl_report.h"

#include "commands.h"

#include <stdio.h>

int cl_failed(const char *what, cl_int error)
{
    fprintf(stderr, "clstencil filter: %s failed (OpenCL error %d)\n", what, (int)error);
    return EXIT_FAILURE_;
}

double event_ms(cl_event event)
{
    cl_ulong start = 0, end = 0;
    if (!event || clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS || end < start)
        return 0.0;
    return (double)(end - start) * 1e-6;
}
