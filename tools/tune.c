/* tune.c — the parts of `clstencil tune` beyond bench's machinery: the work-group shapes it
 * explores, its progress bar, the ranking of what it measured and storing the best in the
 * user's tuning database (where `auto` finds it). */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t tune_group_shapes(const cls_device_caps *device, bench_size *shapes, size_t max)
{
    const unsigned simd = device->simd_width         ? device->simd_width
                          : device->preferred_work_group_multiple ? (unsigned)device->preferred_work_group_multiple
                                                                  : 32;
    const size_t items = device->max_work_group_size < TUNE_MAX_GROUP_ITEMS ? device->max_work_group_size
                                                                           : TUNE_MAX_GROUP_ITEMS;
    size_t count = 0;
    for (unsigned width = simd; width <= TUNE_MAX_GROUP_WIDTH && width <= device->max_work_item_sizes[0]; width *= 2)
        for (unsigned height = 1; height <= TUNE_MAX_GROUP_HEIGHT && height <= device->max_work_item_sizes[1] &&
                                  (size_t)width * height <= items && count < max;
             height *= 2)
            shapes[count++] = (bench_size){width, height, 0};
    return count;
}

void tune_progress(size_t done, size_t total, const bench_case *c)
{
    static size_t last_tenth = 0;
    if (!isatty(STDERR_FILENO)) {
        /* A log: one line per tenth. */
        const size_t tenth = total ? done * 10 / total : 10;
        if (done == 0) last_tenth = 0;
        if (tenth > last_tenth || done == total) fprintf(stderr, "tune: %zu/%zu measured\n", done, total);
        last_tenth = tenth;
        return;
    }
    enum { BAR = 30 };
    const size_t filled = total ? done * BAR / total : BAR;
    char bar[BAR + 1];
    memset(bar, '#', filled);
    memset(bar + filled, '.', BAR - filled);
    bar[BAR] = '\0';
    fprintf(stderr, "\r[%s] %zu/%zu %-40.40s", bar, done, total, c ? c->variant : "");
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

static int faster(const void *a, const void *b)
{
    const bench_row *x = a, *y = b;
    const int x_ok = x->result->outcome == BENCH_OK, y_ok = y->result->outcome == BENCH_OK;
    if (x_ok != y_ok) return y_ok - x_ok;
    if (!x_ok) return 0;
    return (x->result->kernel_us > y->result->kernel_us) - (x->result->kernel_us < y->result->kernel_us);
}

size_t tune_rank(const bench_report *report, bench_row *ranked)
{
    memcpy(ranked, report->rows, report->count * sizeof *ranked);
    qsort(ranked, report->count, sizeof *ranked, faster);
    size_t timed = 0;
    while (timed < report->count && ranked[timed].result->outcome == BENCH_OK) ++timed;
    return timed;
}

cls_status tune_spec(const bench_case *c, cls_operator **op, cls_spec *spec)
{
    cls_status status = cls_operator_parse(c->ops[0], op);
    if (status != CLS_OK) return status;
    *spec = *cls_operator_spec(*op);
    bench_apply_knobs(c, 0, spec);
    return CLS_OK;
}

cls_status tune_store(const bench_env *env, const bench_row *best)
{
    const bench_case *c = best->c;
    const bench_result *r = best->result;
    cls_operator *op = NULL;
    cls_spec spec;
    cls_status status = tune_spec(c, &op, &spec);
    if (status == CLS_OK) {
        const cls_tuning tuning = {CLS_TUNING_INIT,
                                   .partition = r->partition,
                                   .input_path = r->input_path,
                                   .group_width = r->group_width,
                                   .group_height = r->group_height,
                                   .rows_per_item = r->rows ? r->rows : 1,
                                   .cols_per_item = r->cols ? r->cols : 1,
                                   .kernel_us = r->kernel_us,
                                   .width = c->width,
                                   .height = c->height,
                                   .depth = c->depth};
        char description[128];
        snprintf(description, sizeof description, "%s %s", cls_operator_name(op), cls_border_name(c->border));
        status = cls_tuning_store(env->context, &spec, &tuning, description);
    }
    cls_operator_release(op);
    return status;
}
