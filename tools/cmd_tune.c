/* cmd_tune.c — `clstencil tune`: explores partition x input path x work-group shape x rows x
 * columns for one operator, size and border (a volume's: work-group shape x slices) with bench's
 * machinery, prints the fastest and stores the best in the user's tuning database (tune.c), where
 * `auto` finds it. */
#include "bench_options.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>

static int tune_usage(FILE *out, int code)
{
    fprintf(out,
            "usage: clstencil tune --op OPERATOR [--size WxH|WxHxD] [--border MODE] [GRID OPTIONS] [OPTIONS]\n"
            "  explores every combination of partition, input path, work-group shape, rows and columns per\n"
            "  work-item for one operator, image size and border on the device (median kernel time of %d runs\n"
            "  after %d warm-up runs each, as clstencil bench), prints the fastest and stores the best in the\n"
            "  user's tuning database, which `auto` consults first (exact size class, else the nearest).\n"
            "  --op OPERATOR          the operator (cls_operator_parse's syntax)\n"
            "  -s, --size WxH         the image size (default 4096x4096); --border MODE (default clamp), --value V\n"
            "grid options (lists are comma-separated; auto is not a choice here):\n"
            "  --partition LIST       default naive,isp-block,isp-warp\n"
            "  --input LIST           default global,local\n"
            "  --rows LIST            default 1,2,4,8;   --cols LIST   default 1,2\n"
            "  --wg WxH,...           default every shape from the SIMD width up to %d wide and 1 to %d high\n"
            "                         (powers of two), at most %d work-items\n"
            "  a volume's operator (--size WxHxD): --wg and --rows (slices a work-item walks, default\n"
            "                         8,16,32,64,128,256,512) only; the rest is the device's policy\n"
            "  --separable S, --bake | --runtime-mask | --argument-mask, --fold,\n"
            "  --shared-regions | --separate-regions | --body-apart-regions   as clstencil bench (part of\n"
            "                         the operator)\n"
            "options:\n"
            "  -r, --runs N (at least %d), --warmup N   -d, --device SELECTOR (as CLSTENCIL_DEVICE)\n"
            "  --csv FILE, --json FILE   every configuration; --svg FILE kernel time against work-items per\n"
            "                         group, through gnuplot when it is on PATH; a file that cannot be\n"
            "                         written is exit 7, before any timing\n"
            "  --no-store             print the best without storing it\n"
            "  -q, --quiet            no progress on stderr\n"
            "  -h, --help             this text\n"
            "the tuning database: CLSTENCIL_TUNING_DB, else $XDG_CONFIG_HOME/clstencil/tuning.ini, else\n"
            "~/.config/clstencil/tuning.ini; storing creates its missing folders\n",
            BENCH_DEFAULT_RUNS, BENCH_DEFAULT_WARMUP, TUNE_MAX_GROUP_WIDTH, TUNE_MAX_GROUP_HEIGHT,
            TUNE_MAX_GROUP_ITEMS, BENCH_MIN_RUNS);
    return code;
}

/* What auto takes from the stored result: a volume's group and slices, else the configuration. */
static void print_stored(const bench_row *best)
{
    if (best->c->depth)
        printf("stored in %s: auto now walks %u slices a work-item in %ux%u groups\n", cls_tuning_path(),
               best->result->rows, best->result->group_width, best->result->group_height);
    else printf("stored in %s: auto now uses %s\n", cls_tuning_path(), best->c->variant);
}

/* Measures every configuration with a progress bar, ranks them, prints the fastest and stores
 * the best; the files hold every configuration. */
static int run_tune(bench_env *env, bench_plan *plan, const bench_options *o)
{
    const size_t count = plan->count;
    bench_row *rows = calloc(count ? count : 1, sizeof *rows), *ranked = calloc(count ? count : 1, sizeof *rows);
    bench_memo m = {0};
    bench_report report = {.device = cls_context_device(env->context), .runs = o->runs, .warmup = o->warmup,
                           .label_width = 8, .variant_width = 7, .rows = rows, .plot_threads = 1};
    int code = rows && ranked ? EXIT_OK_ : EXIT_FAILURE_;
    for (size_t i = 0; code == EXIT_OK_ && i < count; ++i) {
        if (!o->quiet) tune_progress(i, count, &plan->cases[i]);
        const bench_result *measured = bench_memo_measure(env, plan, &m, &plan->cases[i]);
        if (!measured) code = EXIT_FAILURE_;
        else rows[report.count++] = (bench_row){&plan->cases[i], measured, NULL};
        const int variant = (int)strlen(plan->cases[i].variant);
        report.variant_width = variant > report.variant_width ? variant : report.variant_width;
    }
    if (code == EXIT_OK_ && !o->quiet) tune_progress(count, count, NULL);
    const size_t timed = code == EXIT_OK_ ? tune_rank(&report, ranked) : 0;
    if (code != EXIT_OK_) fprintf(stderr, "clstencil tune: out of memory\n");
    else if (!timed) {
        fprintf(stderr, "clstencil tune: no configuration ran (%s)\n", count ? rows[0].result->note : "none");
        code = EXIT_FAILURE_;
    } else {
        bench_report top = report;
        top.rows = ranked;
        top.count = timed < 10 ? timed : 10;
        report.label_width = top.label_width = (int)strlen(plan->cases[0].label);
        printf("the fastest %zu of %zu configurations (%zu timed):\n", top.count, count, timed);
        bench_table_header(stdout, &top);
        for (size_t i = 0; i < top.count; ++i) bench_table_row(stdout, &top, &ranked[i]);
        const cls_status status = o->no_store ? CLS_OK : tune_store(env, &ranked[0]);
        if (status != CLS_OK) code = report_failure("tune", status);
        else if (!o->no_store) print_stored(&ranked[0]);
    }
    if (report.count && !bench_write_files(&report, o) && code == EXIT_OK_) code = EXIT_OUTPUT;
    bench_memo_free(&m);
    free(rows);
    free(ranked);
    return code;
}

int cmd_tune(int argc, char **argv)
{
    bench_options o;
    const int parsed = bench_parse_options(&o, 1, argc, argv);
    if (parsed == BENCH_OPTIONS_HELP) return tune_usage(stdout, EXIT_OK_);
    if (!parsed && argc < 2) return tune_usage(stderr, EXIT_USAGE); /* nothing given: the whole usage */
    if (!parsed) {
        fprintf(stderr, "(clstencil tune --help lists the options)\n");
        return EXIT_USAGE;
    }
    const int files = bench_check_report_files(&o); /* before any timing */
    if (files != EXIT_OK_) return files;
    bench_env env;
    cls_status status = bench_env_init(&env, o.device, o.runs, o.warmup, 0);
    if (status != CLS_OK) {
        bench_env_free(&env);
        return report_failure("tune", status);
    }
    if (!o.group_count) o.group_count = tune_group_shapes(cls_context_device(env.context), o.groups, BENCH_MAX_LIST);
    bench_plan plan;
    bench_plan_init(&plan);
    int code;
    if (!bench_build_plan(&o, &plan)) {
        fprintf(stderr, "clstencil tune: out of memory\n");
        code = EXIT_FAILURE_;
    } else {
        code = run_tune(&env, &plan, &o);
    }
    bench_env_free(&env);
    bench_plan_free(&plan);
    return code;
}
