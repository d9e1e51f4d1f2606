/* build_goal.c — CLS_BUILD_AUTO decided by expected time: for a spec's expected image, the
 * specialized kernel is built now when its build (on a CPU runtime with the first launch's
 * compile) plus its run is expected to take less than the quick kernel's run; otherwise the quick
 * kernel serves and the specialized one builds in the background (CLS_BUILD_TIERED), cached for
 * the next run. The costs are the record's (build_ms, build_tap_us, quick_tap_fs,
 * specialized_tap_fs; docs/device-db.md), else the defaults of its device type below. */
#include "planner.h"

#include "error.h"

#include <stdio.h>

typedef struct costs {
    double build_ms, build_tap_us, quick_tap_fs, specialized_tap_fs;
} costs;

/* The defaults by device type. CPUs: PoCL 3.1 on 2 cores (its record's figures). GPUs: an H100
 * and H200, where a quick kernel runs a random 13x13 mask at 4096^2 in 1.13 ms and the specialized
 * one in 0.13 ms, and the specialized build takes 15-22 s (docs/api.md). */
static costs type_defaults(cls_device_type type)
{
    if (type == CLS_DEVICE_GPU) return (costs){1000.0, 100000.0, 400.0, 50.0};
    return (costs){150.0, 15000.0, 580000.0, 40000.0};
}

/* The taps a build compiles: a body's FOR_WINDOW writes out some (on PoCL, the rows of a long
 * body's window stay a loop: the 13x13 bilateral filter built in 0.4 s, not the 2.7 s of 169
 * unrolled taps); anything else, the taps it computes. */
static double compiled_taps(const cls_planner *planner, const cls_request *request, double computed)
{
    const cls_spec *spec = &request->spec;
    if (!spec->body) return computed;
    return request->masks * (double)request->depth *
           cls_body_unrolled_taps(spec, (int)planner->record->border_groups_fold_fully);
}

/* The taps a work-item computes: a mask that runs as row and column passes computes W + H. */
static double computed_taps(const cls_planner *planner, const cls_request *request)
{
    const cls_spec *spec = &request->spec;
    const double count = request->masks * (double)request->depth;
    cls_kernel_config config;
    if (cls_plan_configure(planner, request, &config) == CLS_OK) {
        const int separable = config.separable != CLS_SEPARABLE_NONE;
        cls_kernel_config_free(&config);
        if (separable) return count * (spec->mask_width + spec->mask_height);
    }
    return count * spec->mask_width * spec->mask_height;
}

/* The decision for the request (cls_plan_build_now). */
static int build_now(const cls_planner *planner, const cls_request *request, char *reason, size_t reason_size)
{
    const cls_spec *spec = &request->spec;
    costs c = type_defaults(planner->caps->type);
    const cls_arch_record *r = planner->record;
    if (r->build_ms) c.build_ms = r->build_ms;
    if (r->build_tap_us) c.build_tap_us = r->build_tap_us;
    if (r->quick_tap_fs) c.quick_tap_fs = r->quick_tap_fs;
    if (r->specialized_tap_fs) c.specialized_tap_fs = r->specialized_tap_fs;
    const double pixels = (double)spec->expected_width * spec->expected_height;
    if (!(pixels > 0.0)) {
        snprintf(reason, reason_size, "the quick kernel (no expected image size to weigh a build against); "
                                      "the specialized one builds in the background");
        return 0;
    }
    const double taps = computed_taps(planner, request);
    const double quick = pixels * taps * c.quick_tap_fs * 1e-12, special = pixels * taps * c.specialized_tap_fs * 1e-12;
    const double build = c.build_ms + compiled_taps(planner, request, taps) * c.build_tap_us * 1e-3;
    const int now = build + special < quick;
    snprintf(reason, reason_size,
             now ? "built now: expected %.0f ms to build and %.0f ms to run, against %.0f ms for the quick kernel"
                 : "the quick kernel: expected %.0f ms to build the specialized one and %.0f ms to run it, against "
                   "%.0f ms for the quick kernel; the specialized one builds in the background for the next run",
             build, special, quick);
    return now;
}

int cls_plan_build_now(const cls_planner *planner, const cls_spec *spec, char *reason, size_t reason_size)
{
    cls_request request;
    if (cls_request_init(&request, spec) != CLS_OK) {
        snprintf(reason, reason_size, "the quick kernel (%s)", cls_last_error());
        return 0;
    }
    const int now = build_now(planner, &request, reason, reason_size);
    cls_request_free(&request);
    return now;
}
