/* queue_order.c — whether a context's queue runs its commands in the order they were enqueued
 * (the FFT method and the build goals rely on it). */
#include "host.h"

int cls_queue_in_order(const cls_context *context)
{
    cl_command_queue_properties properties = 0;
    return clGetCommandQueueInfo(context->queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL) ==
               CL_SUCCESS &&
           !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}
