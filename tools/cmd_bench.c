/* cmd_bench.c — `clstencil bench`: times a named suite of the references' experiments or a
 * custom grid of one pipeline of --op stages on the device (median kernel time from OpenCL
 * profiling events next to a device copy of the same bytes), optionally against the naive
 * partition of the same configuration; --short checks the outputs of every variant against the
 * plain global variant instead of timing. The parts live in bench_*.c (see bench.h). */
#include "bench_options.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>

static int usage(FILE *out, int code)
{
    fprintf(out,
            "usage: clstencil bench --suite isp|hipacc|filters [--short] [OPTIONS]\n"
            "       clstencil bench --op OPERATOR [--op ...] [GRID OPTIONS] [OPTIONS]\n"
            "  times stencils on the device (f32): the median kernel time of %d runs after %d warm-up runs from\n"
            "  OpenCL profiling events, a device-to-device copy of the same bytes in the same run, their ratio\n"
            "  and the effective bandwidth.\n"
            "suites:\n"
            "  isp      Gaussian 3x3, Laplace 5x5, bilateral 13x13, Sobel x, y, magnitude, Night; naive, isp,\n"
            "           isp+model (auto); clamp, mirror, repeat, constant; 512^2 to 4096^2; geometric means\n"
            "  hipacc   bilateral 13x13 (sigma_d 3) at 4096^2 in every border mode: plain, +mask, +image, +local\n"
            "  filters  Scharr x and y at 3, 5, 7, 9: single, local, separable-2pass, separable-1pass, double,\n"
            "           predefined; clamp; 512^2 to 4096^2\n"
            "  --short  each suite at 64x48, %d runs, no warm-up: checks that every variant's outputs equal the\n"
            "           plain global variant's (naive partition) and exits 3 on a mismatch; times nothing\n"
            "grid options (with --op; lists are comma-separated, every combination is run):\n"
            "  --op OPERATOR          a stage (cls_operator_parse's syntax, night, or user:FILE[,WxH[xD]]);\n"
            "                         repeated: one pipeline\n"
            "  -s, --size WxH | --sizes N|WxH|WxHxD,...   image or volume sizes (default 4096x4096)\n"
            "  -b, --border M | --borders M,...     border modes (default clamp); --value V for constant\n"
            "  --partition naive|isp-block|isp-warp|auto,...   --input auto|global|local|image,...\n"
            "  --separable auto|none|single-pass|two-pass,...  --method auto|direct|fft,...  --rows auto|N,...  --cols auto|N,...  --wg WxH|auto,...\n"
            "  --bake | --runtime-mask | --argument-mask   mask as literals, a __constant buffer or a\n"
            "                         by-value kernel argument (default: the operator's)\n"
            "  --shared-regions | --separate-regions | --body-apart-regions   ISP regions share one copy of\n"
            "                         the unrolled sums (builds in seconds), have one each, or the body,\n"
            "                         left and right regions have one each and the others share a fourth\n"
            "                         (as fast as one each, builds 3-4 times faster; the default)\n"
            "  --fold                 baked masks: equal taps share a multiplication\n"
            "options:\n"
            "  --sizes, --borders     replace a suite's sizes and borders too\n"
            "  -r, --runs N (at least %d), --warmup N   -d, --device SELECTOR (as CLSTENCIL_DEVICE)\n"
            "  -h, --help             this text\n"
            "  --compare naive        add the same configuration with partition naive, and the speedup\n"
            "  --csv FILE, --json FILE   write the rows; --svg FILE draws them with gnuplot when it is on PATH;\n"
            "                         a file that cannot be written is exit 7, before any timing\n"
            "  --model-check          for every --op (each its own case; default Gaussian 3x3 and 5x5, Laplace\n"
            "                         5x5, bilateral 13x13, Sobel magnitude) x size (default 512^2 to 4096^2) x\n"
            "                         border (default clamp, mirror, repeat, constant): the analytic models'\n"
            "                         choice against the best of every partition x --wg shape (default every\n"
            "                         shape tune explores); the share within 5%% of the best, the geometric-mean\n"
            "                         loss and how often the ISP-versus-naive choice matches the faster;\n"
            "                         --csv FILE writes a row per case\n"
            "  --cold                 time to first result: for every --op and border, the wall time of creating\n"
            "                         the filter with empty caches (a new clstencil cache; NVIDIA's and PoCL's\n"
            "                         caches off unless CUDA_CACHE_DISABLE / POCL_KERNEL_CACHE say otherwise) for\n"
            "                         the goals first-result and fastest-kernel, each kernel's median time, and\n"
            "                         the specialized filter's creation again in a new context (warm)\n"
            "  --transfers            host-to-device and device-to-host copies of one --size of f32 (default\n"
            "                         4096x4096) from ordinary memory (touched before, and fresh pages) and from\n"
            "                         pinned memory (cls_host_alloc): median wall time of a blocking copy, its\n"
            "                         profiled time and the rate\n"
            "  --calibrate-isp        calibrates the ISP model on this device: one --op (default gaussian:5) at\n"
            "                         one size (default 4096x4096), naive against isp-block at the models'\n"
            "                         configuration for each border (default all but undefined); stores the\n"
            "                         check cost per loaded pixel each implies in the tuning file\n",
            BENCH_DEFAULT_RUNS, BENCH_DEFAULT_WARMUP, BENCH_SHORT_RUNS, BENCH_MIN_RUNS);
    return code;
}

/* --short: a row's outputs against the plain global variant of its operators and border. */
static void check_row(bench_env *env, bench_plan *plan, bench_memo *m, const bench_case *c, bench_result *result)
{
    if (result->outcome != BENCH_OK) return;
    bench_case plain = *c;
    bench_knobs_plain(&plain.knobs);
    const bench_result *reference = bench_memo_measure(env, plan, m, &plain);
    if (!reference) {
        result->outcome = BENCH_ERROR;
        snprintf(result->note, sizeof result->note, "out of memory");
    } else if (reference->outcome != BENCH_OK) {
        result->outcome = BENCH_ERROR;
        snprintf(result->note, sizeof result->note, "the plain global variant failed: %.250s", reference->note);
    } else if (!bench_outputs_match(result, reference, c->width, (unsigned)(bench_case_pixels(c) / c->width), result->note,
                                    sizeof result->note)) {
        result->outcome = BENCH_MISMATCH;
    }
}

/* ---------------------------------------------------------------- output */

static int status_exit_code(cls_status status)
{
    switch (status) {
    case CLS_ERR_NO_PLATFORM:
    case CLS_ERR_NO_DEVICE: return EXIT_NO_DEVICE;
    case CLS_ERR_INVALID_ARGUMENT: return EXIT_USAGE;
    default: return EXIT_FAILURE_;
    }
}

/* One --op configuration: the two lines bench has always printed, and what `auto` chose. */
static int print_single(const bench_report *report, const bench_options *o)
{
    const bench_row *row = &report->rows[0];
    const bench_result *r = row->result;
    if (r->outcome != BENCH_OK) {
        fprintf(stderr, "clstencil bench: %s%s\n", r->outcome == BENCH_UNSUPPORTED ? "unsupported: " : "", r->note);
        return status_exit_code(r->status);
    }
    char depth[24] = "";
    if (row->c->depth > 1) snprintf(depth, sizeof depth, "x%u", row->c->depth);
    printf("device %s; %ux%u%s f32, border %s, %zu stage(s): %s\n", report->device->name, row->c->width, row->c->height,
           depth, cls_border_name(row->c->border), row->c->op_count, o->label);
    printf("kernel %.1f us (median of %d), copy %.1f us, ratio %.2f, effective %.0f GB/s\n", r->kernel_us, report->runs,
           r->copy_us, r->kernel_us / r->copy_us, bench_row_gbps(row));
    if (r->method == CLS_METHOD_FFT)
        printf("chosen fft\n");
    else
        printf("chosen %s %ux%u, %ux%u outputs per work-item, separable %s\n", cls_partition_name(r->partition),
               r->group_width, r->group_height, r->cols, r->rows, cls_separable_name(r->separable));
    const double speedup = bench_row_speedup(row);
    if (report->compare && speedup > 0)
        printf("naive %.1f us (median of %d), speedup %.2f\n", row->naive->kernel_us, report->runs, speedup);
    else if (report->compare)
        printf("naive: %s\n", row->naive ? row->naive->note : "not measured");
    return EXIT_OK_;
}

/* The exit code of a table: failures and mismatches fail the command, unsupported rows do not. */
static int summarize(const bench_report *report)
{
    size_t failed = 0, mismatched = 0, unsupported = 0;
    for (size_t i = 0; i < report->count; ++i) {
        const bench_outcome outcome = report->rows[i].result->outcome;
        failed += outcome == BENCH_ERROR;
        mismatched += outcome == BENCH_MISMATCH;
        unsupported += outcome == BENCH_UNSUPPORTED;
    }
    if (report->check)
        printf("\nchecked %zu configurations: %zu match the plain global variant, %zu mismatch, %zu failed, "
               "%zu unsupported\n",
               report->count, report->count - failed - mismatched - unsupported, mismatched, failed, unsupported);
    else if (failed || unsupported)
        printf("\n%zu configurations failed, %zu are unsupported on this device\n", failed, unsupported);
    if (failed || mismatched) {
        fprintf(stderr, "clstencil bench: %zu configuration(s) failed, %zu mismatched\n", failed, mismatched);
        return EXIT_FAILURE_;
    }
    return EXIT_OK_;
}

/* Measures every row (printing the table as it goes unless single), then the summary and files. */
static int run_plan(bench_env *env, bench_plan *plan, const bench_options *o)
{
    const size_t count = plan->count;
    bench_row *rows = calloc(count ? count : 1, sizeof *rows);
    bench_result *results = calloc(count ? count : 1, sizeof *results);
    bench_memo m = {0};
    bench_report report = {.suite = o->suite, .device = cls_context_device(env->context), .runs = o->runs,
                           .warmup = o->warmup, .check = o->check, .compare = o->compare, .label_width = 8,
                           .variant_width = 7, .rows = rows};
    for (size_t i = 0; i < count; ++i) {
        const int label = (int)strlen(plan->cases[i].label), variant = (int)strlen(plan->cases[i].variant);
        report.label_width = label > report.label_width ? label : report.label_width;
        report.variant_width = variant > report.variant_width ? variant : report.variant_width;
    }
    const int single = !o->suite && count == 1 && !o->check;
    int code = EXIT_OK_;
    if (!rows || !results) code = EXIT_FAILURE_;
    if (code == EXIT_OK_ && !single) bench_table_header(stdout, &report);
    for (size_t i = 0; code == EXIT_OK_ && i < count; ++i) {
        const bench_case *c = &plan->cases[i];
        const bench_result *measured = bench_memo_measure(env, plan, &m, c);
        /* The naive twin: the same configuration and work-group shapes, partition naive. */
        bench_case twin = *c;
        twin.knobs.partition = CLS_PARTITION_NAIVE;
        if (measured) bench_case_pin_groups(&twin, measured);
        const bench_result *naive = o->compare && measured ? bench_memo_measure(env, plan, &m, &twin) : NULL;
        if (!measured || (o->compare && !naive)) {
            code = EXIT_FAILURE_;
            break;
        }
        results[i] = *measured; /* a copy: the check may mark this row only */
        if (o->check) check_row(env, plan, &m, c, &results[i]);
        rows[i] = (bench_row){c, &results[i], naive};
        report.count = i + 1;
        if (!single) bench_table_row(stdout, &report, &rows[i]);
    }
    if (code != EXIT_OK_) fprintf(stderr, "clstencil bench: out of memory\n");
    else if (single) code = print_single(&report, o);
    else {
        bench_table_geomeans(stdout, &report);
        code = summarize(&report);
    }
    if (report.count && !bench_write_files(&report, o) && code == EXIT_OK_) code = EXIT_OUTPUT;
    bench_memo_free(&m);
    free(rows);
    free(results);
    return code;
}

/* --model-check (the grid of the options or the models issue's, shapes every valid one) and
 * --calibrate-isp. */
static int run_model_check(bench_options *o)
{
    bench_env env;
    cls_status status = bench_env_init(&env, o->device, o->runs, o->warmup, 0);
    int code;
    if (status != CLS_OK) {
        code = report_failure("bench", status);
    } else {
        if (!o->group_count) o->group_count = tune_group_shapes(cls_context_device(env.context), o->groups, BENCH_MAX_LIST);
        model_check_grid grid = {o->ops, o->op_count, o->sizes, o->size_count, o->borders, o->border_count,
                                 o->border_value, o->groups, o->group_count, o->csv};
        if (o->calibrate_isp) {
            code = isp_calibration_run(&env, &grid);
        } else {
            model_check_defaults(&grid);
            code = model_check_run(&env, &grid);
        }
    }
    bench_env_free(&env);
    return code;
}

int cmd_bench(int argc, char **argv)
{
    bench_options o;
    const int parsed = bench_parse_options(&o, 0, argc, argv);
    if (parsed == BENCH_OPTIONS_HELP) return usage(stdout, EXIT_OK_);
    if (!parsed && argc < 2) return usage(stderr, EXIT_USAGE); /* nothing given: the whole usage */
    if (!parsed) {
        fprintf(stderr, "(clstencil bench --help lists the options)\n");
        return EXIT_USAGE;
    }
    const int files = bench_check_report_files(&o); /* before any timing */
    if (files != EXIT_OK_) return files;
    if (o.model_check || o.calibrate_isp) return run_model_check(&o);
    if (o.cold) return bench_cold(&o);
    if (o.transfers) return bench_transfers(&o);
    bench_plan plan;
    bench_plan_init(&plan);
    if (!bench_build_plan(&o, &plan)) {
        bench_plan_free(&plan);
        fprintf(stderr, "clstencil bench: out of memory\n");
        return EXIT_FAILURE_;
    }
    bench_env env;
    cls_status status = bench_env_init(&env, o.device, o.runs, o.warmup, o.check);
    const int code = status == CLS_OK ? run_plan(&env, &plan, &o) : report_failure("bench", status);
    bench_env_free(&env);
    bench_plan_free(&plan);
    return code;
}

