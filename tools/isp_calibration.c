/* isp_calibration.c — `clstencil bench --calibrate-isp`: the measurement that calibrates the ISP
 * model on this device. For each border mode it times a reference operator (Gaussian 5x5 unless
 * --op says otherwise) naive against isp-block, alternately, at a large image and the models'
 * configuration, and lets the library solve for the check cost per loaded pixel that reproduces
 * that gain and store it (cls_isp_calibrate). */
#include "bench.h"

#include <string.h>

static const char *const DEFAULT_OP = "gaussian:5";
static const bench_size DEFAULT_SIZE = {4096, 4096, 0};
static const cls_border DEFAULT_BORDERS[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                             CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};

/* One border mode; 0 when it failed (after saying why). */
static int calibrate_border(bench_env *env, const char *op_text, bench_size size, cls_border border, float value)
{
    bench_case base = {.application = "calibrate-isp", .label = op_text, .variant = "", .ops = {op_text},
                       .op_count = 1, .layout = BENCH_CHAIN, .border = border, .border_value = value,
                       .width = size.width, .height = size.height};
    bench_knobs_init(&base.knobs);
    cls_operator *op = NULL;
    cls_spec spec;
    cls_tuning model = {CLS_TUNING_INIT};
    cls_status status = tune_spec(&base, &op, &spec);
    if (status == CLS_OK) status = cls_model_choose(env->context, &spec, size.width, size.height, &model);
    double naive_us = -1.0, isp_us = -1.0, check = 0.0;
    if (status == CLS_OK) {
        const bench_size group = {model.group_width, model.group_height, 0};
        const bench_case naive = bench_explicit_case(&base, &model, CLS_PARTITION_NAIVE, group);
        const bench_case isp = bench_explicit_case(&base, &model, CLS_PARTITION_ISP_BLOCK, group);
        bench_time_pair(env, &naive, &isp, &naive_us, &isp_us, NULL);
        if (naive_us <= 0 || isp_us <= 0) status = CLS_ERR_OPENCL;
    }
    if (status == CLS_OK) {
        spec.group_width = model.group_width, spec.group_height = model.group_height;
        spec.rows_per_item = model.rows_per_item, spec.cols_per_item = model.cols_per_item;
        spec.input_path = model.input_path;
        status = cls_isp_calibrate(env->context, &spec, size.width, size.height, naive_us, isp_us, op_text, &check);
    }
    cls_operator_release(op);
    if (status != CLS_OK) {
        fprintf(stderr, "clstencil bench: --calibrate-isp %s %s: %s\n", op_text, cls_border_name(border),
                status == CLS_ERR_OPENCL && !cls_last_error()[0] ? "a timing did not run" : cls_last_error());
        return 0;
    }
    printf("%-10s %4ux%-4u %3ux%-3u %9.1f %9.1f %6.3f %8.3f\n", cls_border_name(border), model.group_width,
           model.group_height, model.rows_per_item, model.cols_per_item, naive_us, isp_us, naive_us / isp_us, check);
    fflush(stdout);
    return 1;
}

int isp_calibration_run(bench_env *env, const model_check_grid *grid)
{
    const char *op_text = grid->op_count ? grid->ops[0] : DEFAULT_OP;
    const bench_size size = grid->size_count ? grid->sizes[0] : DEFAULT_SIZE;
    const cls_border *borders = grid->border_count ? grid->borders : DEFAULT_BORDERS;
    const size_t border_count = grid->border_count ? grid->border_count : sizeof DEFAULT_BORDERS / sizeof DEFAULT_BORDERS[0];
    printf("ISP calibration on %s: %s at %ux%u, naive against isp-block (median of %d alternate medians of %d runs); "
           "stored in %s\n",
           cls_context_device(env->context)->name, op_text, size.width, size.height, BENCH_PAIR_ROUNDS, env->runs,
           cls_tuning_path());
    printf("%-10s %-9s %-7s %9s %9s %6s %8s\n", "border", "shape", "rows", "naive us", "isp us", "gain",
           "check");
    int ok = 1;
    for (size_t b = 0; b < border_count; ++b) {
        if (borders[b] == CLS_BORDER_UNDEFINED) {
            fprintf(stderr, "clstencil bench: --calibrate-isp: the undefined border has no checks to calibrate\n");
            ok = 0;
            continue;
        }
        ok &= calibrate_border(env, op_text, size, borders[b], grid->border_value);
    }
    return ok ? 0 : 1;
}
