/* planner.h — the planner: everything `auto` decides about a kernel's configuration, in one
 * place and without OpenCL. For the knobs a spec leaves to `auto` (partition, input path,
 * work-group shape, rows and columns per work-item) it takes the tuning results, else the
 * analytic models (occupancy, Hipacc's Algorithm 2, the ISP paper's gain), else the device
 * record's policy. What only a build can tell (a kernel's registers and local memory) it asks of
 * the runtime through a callback, so it never creates a filter and tests can give it any facts.
 * Each function that takes a spec is an entrance: it reads the spec once into a request
 * (request.h), and the steps past it (those that take the request) never see the caller's spec. */
#ifndef CLS_PLANNER_H
#define CLS_PLANNER_H

#include "clstencil_tuning.h"
#include "generator.h"
#include "policy.h"
#include "tuning.h"

/* What the runtime reports of the kernel it builds for a spec under the policy: the build's
 * registers and local memory, and the knobs the policy resolved. */
typedef struct cls_build_facts {
    unsigned registers, local_bytes;
    unsigned rows, cols, group_width, group_height;
    cls_input_path input_path;
} cls_build_facts;

/* Builds spec under the policy (cached like any build) and fills *facts; RUNTIME is the
 * planner's. */
typedef cls_status (*cls_build_facts_fn)(void *runtime, const cls_spec *spec, cls_build_facts *facts);

/* What the planner knows of one device. */
typedef struct cls_planner {
    const cls_device_caps *caps;
    const cls_arch_record *record;      /* the matched database record: policy and models */
    const cls_tuning_table *tuning;     /* shipped and user results, ISP calibrations */
    cls_build_facts_fn build_facts;
    void *runtime;
} cls_planner;

/* The architecture the device's tuning results are filed under (its key, else the record's id). */
const char *cls_plan_arch(const cls_planner *planner);
/* The device's policy for a kernel: its record's keys over the defaults (policy.h). */
cls_kernel_policy cls_plan_kernel_policy(const cls_planner *planner);
/* The request with `auto` resolved by the record's policy (work-group shape, rows, and the
 * generated code's limits): rows per work-item halved while a local tile would not fit the device
 * (the configuration is freed by the caller). cls_plan_policy: the same for a spec. */
cls_status cls_plan_configure(const cls_planner *planner, const cls_request *request, cls_kernel_config *config);
cls_status cls_plan_policy(const cls_planner *planner, const cls_spec *spec, cls_kernel_config *config);
/* The tuned result for the request at width x height (0 x 0: the largest class tuned; else the
 * exact class, else the nearest; a volume's class counts the spec's expected_depth, and takes the
 * exact class only); 0 when the operator was never tuned on this architecture.
 * cls_plan_tuned: the same for a spec. */
int cls_plan_tuned_for(const cls_planner *planner, const cls_request *request, unsigned width, unsigned height,
                       cls_tuning *tuning);
int cls_plan_tuned(const cls_planner *planner, const cls_spec *spec, unsigned width, unsigned height,
                   cls_tuning *tuning);
/* The check cost per loaded pixel calibrated for border on this architecture; 0 when none. */
int cls_plan_calibration(const cls_planner *planner, cls_border border, double *check_per_load);
/* What the analytic models choose for the request at width x height (cls_model_choose's
 * contract). cls_plan_models: the same for a spec. */
cls_status cls_plan_models_for(const cls_planner *planner, const cls_request *request, unsigned width,
                               unsigned height, cls_tuning *choice);
cls_status cls_plan_models(const cls_planner *planner, const cls_spec *spec, unsigned width, unsigned height,
                           cls_tuning *choice);
/* The check cost with which the ISP model gives a measured naive-over-isp-block GAIN for the
 * reference (every knob set) at the measured configuration (cls_isp_calibrate's model side). */
cls_status cls_plan_isp_check(const cls_planner *planner, const cls_spec *reference, const cls_tuning *measured,
                              double gain, double *check_per_load);
/* Whether occupancy limits the kernel, so that the models take Algorithm 2's shape and eq. 10
 * weighs the naive build at its own occupancy: not for a streaming kernel (rows_per_item of
 * CLS_STREAM_MIN_ROWS or more) nor for a weighted sum of CLS_COMPUTE_BOUND_TAPS or more
 * multiply-adds per output; those keep the policy's shape and count both builds at the ISP
 * build's occupancy. */
int cls_plan_weighs_occupancy(const cls_request *request, unsigned rows_per_item);
/* `auto`'s choice for the knobs the request leaves to it: the tuning results' for its expected
 * size, else, where the record uses the models and the spec gives its expected size, the models'
 * (a volume: tuning results only, filed under the size class of its slices, and of that class only).
 * 0: no choice applies (the policy decides). */
int cls_plan_choice(const cls_planner *planner, const cls_request *request, cls_tuning *choice);
/* spec with the knobs it leaves to `auto` taken from a choice: for a volume, the work-group shape
 * and the slices a work-item walks (its input path, columns and passes stay the policy's). */
cls_spec cls_plan_apply(const cls_spec *spec, const cls_tuning *choice);
/* The specs to create in order, the first that the device and the build take serving: the
 * choice applied (where cls_plan_choice has one), then spec itself (as read) for the policy;
 * *count of them (1 or 2). A spec that the request refuses: its status, no candidate. */
cls_status cls_plan_candidates(const cls_planner *planner, const cls_spec *spec, cls_spec candidates[2],
                               unsigned *count);
/* CLS_BUILD_AUTO's decision for spec at its expected size (build_goal.c): 1 to build the
 * specialized kernel now, 0 for the quick kernel with the specialized one built in the
 * background; REASON says why, with the expected times. */
int cls_plan_build_now(const cls_planner *planner, const cls_spec *spec, char *reason, size_t reason_size);
/* cls_policy_body_lanes under the planner's record for spec (1 where the spec is refused). */
unsigned cls_plan_body_lanes(const cls_planner *planner, const cls_spec *spec);

#endif
