/* filter_internal.h — the filter's fields, and what its launches and its runs on host images
 * share (filter.c, filter_run_host.c; internal). */
#ifndef CLS_FILTER_INTERNAL_H
#define CLS_FILTER_INTERNAL_H

#include "build.h"

#include <pthread.h>

struct cls_filter {
    cls_context *context;
    cls_kernel_config config;
    char *source;
    cls_build_info build_info;
    const cls_work_ops *work_ops; /* what launches run: the filter's own kernel, a separable */
    void *work;                   /* pair or an operator in stages */
    pthread_mutex_t launch_lock;  /* serializes the launches of a work that asks for it */
    cls_tier *tier;               /* CLS_BUILD_TIERED: the specialized kernel, building or built,
                                   * which takes over the launches once built */
    unsigned tier_images;         /* the f32 images of a launch's size that kernel will keep */
    char decision[320];           /* what the build goal chose and why ("" where it had no choice) */
};

/* The filter whose kernel serves launches: the tier's specialized one once built. */
const cls_filter *cls_filter_serving(const cls_filter *filter);
/* The name of output k in messages: "output" when there is one, else "output k". */
const char *cls_filter_output_name(unsigned count, unsigned k, char text[24]);
/* count matches the filter's outputs, and the list of outputs is there. */
cls_status cls_filter_check_output_count(const cls_filter *filter, unsigned count, const void *outputs);

#endif
