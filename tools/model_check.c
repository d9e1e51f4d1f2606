/* model_check.c — `clstencil bench --model-check`: for every operator x size x border, what the
 * analytic models choose (cls_model_choose: Algorithm 2's work-group shape, the ISP gain's
 * partition) against the best of an exhaustive exploration of partition x work-group shape at
 * the same rows, columns and input path; then the share of cases within 5% (and 10%) of the best,
 * the geometric-mean loss, and how often the ISP-versus-naive choice matches the faster of the
 * two measured at the model's shape. The exploration only selects: the best it found and the
 * model's choice are then timed again, alternately, and compared on those times (likewise naive
 * and isp-block), so that the least of many noisy medians does not count as the model's loss. */
#include "bench.h"
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid: Gaussian 3x3 and 5x5, Laplace 5x5, bilateral 13x13, Sobel magnitude; 512^2
 * to 4096^2; clamp, mirror, repeat, constant (80 cases). */
static const char *const DEFAULT_OPS[] = {"gaussian:3", "gaussian:5", "laplace:5", "bilateral:3,0.1,13", "sobel:mag"};
static const bench_size DEFAULT_SIZES[] = {{512, 512, 0}, {1024, 1024, 0}, {2048, 2048, 0}, {4096, 4096, 0}};
static const cls_border DEFAULT_BORDERS[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
static const cls_partition PARTITIONS[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};

void model_check_defaults(model_check_grid *grid)
{
    if (!grid->op_count) {
        grid->ops = DEFAULT_OPS;
        grid->op_count = sizeof DEFAULT_OPS / sizeof DEFAULT_OPS[0];
    }
    if (!grid->size_count) grid->sizes = DEFAULT_SIZES, grid->size_count = sizeof DEFAULT_SIZES / sizeof DEFAULT_SIZES[0];
    if (!grid->border_count)
        grid->borders = DEFAULT_BORDERS, grid->border_count = sizeof DEFAULT_BORDERS / sizeof DEFAULT_BORDERS[0];
}

bench_case bench_explicit_case(const bench_case *base, const cls_tuning *t, cls_partition partition, bench_size group)
{
    bench_case c = *base;
    bench_knobs_init(&c.knobs);
    c.knobs.partition = partition;
    c.knobs.input_path = t->input_path;
    c.knobs.rows = t->rows_per_item;
    c.knobs.cols = t->cols_per_item;
    c.knobs.group_width = group.width;
    c.knobs.group_height = group.height;
    return c;
}

/* The median kernel time of one configuration, or a negative number when it did not run; with
 * registers, the build's registers per work-item. */
static double time_of(bench_env *env, const bench_case *c, unsigned *registers)
{
    bench_result result;
    bench_measure(env, c, &result);
    const double us = result.outcome == BENCH_OK ? result.kernel_us : -1.0;
    if (registers) *registers = result.registers;
    bench_result_free(&result);
    return us;
}

void bench_time_pair(bench_env *env, const bench_case *a, const bench_case *b, double *a_us, double *b_us,
                      unsigned registers[2])
{
    double as[BENCH_PAIR_ROUNDS], bs[BENCH_PAIR_ROUNDS];
    int failed = 0;
    unsigned ignored[2];
    if (!registers) registers = ignored;
    for (int k = 0; k < BENCH_PAIR_ROUNDS; ++k) {
        as[k] = time_of(env, a, &registers[0]);
        bs[k] = time_of(env, b, &registers[1]);
        failed |= as[k] < 0 || bs[k] < 0;
    }
    *a_us = failed ? -1.0 : bench_median(as, BENCH_PAIR_ROUNDS);
    *b_us = failed ? -1.0 : bench_median(bs, BENCH_PAIR_ROUNDS);
}

typedef struct case_outcome {
    int ran;             /* the model's choice and at least one explored configuration ran */
    cls_tuning model;    /* the models' choice */
    cls_partition best_partition;
    bench_size best_group;
    double best_us, model_us;
    double naive_us, isp_us;        /* at the model's shape */
    unsigned naive_registers, isp_registers;
    int isp_match;       /* the model's partition choice is the faster of naive and isp-block */
} case_outcome;


/* One operator x size x border. */
static case_outcome check_case(bench_env *env, const model_check_grid *grid, const bench_case *base)
{
    case_outcome out = {0};
    cls_operator *op = NULL;
    cls_spec spec;
    cls_tuning model = {CLS_TUNING_INIT};
    if (tune_spec(base, &op, &spec) != CLS_OK ||
        cls_model_choose(env->context, &spec, base->width, base->height, &model) != CLS_OK) {
        printf("%-18s %-9s %5ux%-5u model failed: %s\n", base->label, cls_border_name(base->border), base->width,
               base->height, cls_last_error());
        cls_operator_release(op);
        return out;
    }
    cls_operator_release(op);
    out.model = model;
    const bench_size model_group = {model.group_width, model.group_height, 0};
    const bench_case chosen = bench_explicit_case(base, &model, model.partition, model_group);
    /* The exploration: every partition x shape at the model's rows, columns and input path. */
    const size_t partitions = sizeof PARTITIONS / sizeof PARTITIONS[0];
    bench_case *explored = calloc(partitions * grid->group_count, sizeof *explored);
    if (!explored) {
        printf("%-18s %-9s %5ux%-5u out of memory\n", base->label, cls_border_name(base->border), base->width,
               base->height);
        return out;
    }
    size_t count = 0;
    for (size_t p = 0; p < partitions; ++p)
        for (size_t g = 0; g < grid->group_count; ++g)
            explored[count++] = bench_explicit_case(base, &model, PARTITIONS[p], grid->groups[g]);
    double best = -1.0;
    size_t best_index = 0;
    for (size_t i = 0; i < count; ++i) {
        const double us = time_of(env, &explored[i], NULL);
        if (us > 0 && (best < 0 || us < best)) best = us, best_index = i;
    }
    /* The best found against the model's choice, and naive against isp-block at the model's shape
     * (which one the ISP model should pick), each pair on fresh alternate timings. */
    if (best > 0) {
        out.best_partition = explored[best_index].knobs.partition;
        out.best_group = (bench_size){explored[best_index].knobs.group_width, explored[best_index].knobs.group_height, 0};
        bench_time_pair(env, &explored[best_index], &chosen, &best, &out.model_us, NULL);
        const bench_case plain = bench_explicit_case(base, &model, CLS_PARTITION_NAIVE, model_group);
        const bench_case isp_case = bench_explicit_case(base, &model, CLS_PARTITION_ISP_BLOCK, model_group);
        unsigned registers[2] = {0, 0};
        bench_time_pair(env, &plain, &isp_case, &out.naive_us, &out.isp_us, registers);
        out.naive_registers = registers[0], out.isp_registers = registers[1];
    }
    free(explored);
    out.ran = best > 0 && out.model_us > 0 && out.naive_us > 0 && out.isp_us > 0;
    if (!out.ran) {
        printf("%-18s %-9s %5ux%-5u a configuration did not run\n", base->label, cls_border_name(base->border),
               base->width, base->height);
        return out;
    }
    if (out.model_us < best)
        best = out.model_us, out.best_group = model_group, out.best_partition = model.partition;
    out.best_us = best;
    out.isp_match = (model.partition == CLS_PARTITION_NAIVE) == (out.naive_us < out.isp_us);
    printf("%-18s %-9s %5ux%-5u %-9s %4ux%-4u %9.1f  %-9s %4ux%-4u %9.1f %6.1f%%  %9.1f %9.1f %s\n", base->label,
           cls_border_name(base->border), base->width, base->height, cls_partition_name(out.best_partition),
           out.best_group.width, out.best_group.height, best, cls_partition_name(model.partition), model.group_width,
           model.group_height, out.model_us, 100.0 * (out.model_us / best - 1.0), out.naive_us, out.isp_us,
           out.isp_match ? "yes" : "no");
    fflush(stdout);
    return out;
}

/* A CSV row per case that ran: enough to evaluate another ISP or shape rule without measuring. */
static void csv_header(FILE *csv)
{
    if (csv)
        fprintf(csv, "operator,border,width,height,rows,cols,best_partition,best_group_width,best_group_height,best_us,"
                     "model_partition,model_group_width,model_group_height,model_us,naive_us,isp_us,naive_registers,"
                     "isp_registers,isp_match\n");
}

static void csv_row(FILE *csv, const bench_case *base, const case_outcome *out)
{
    if (!csv || !out->ran) return;
    fprintf(csv, "\"%s\",%s,%u,%u,%u,%u,%s,%u,%u,%.3f,%s,%u,%u,%.3f,%.3f,%.3f,%u,%u,%d\n", base->ops[0],
            cls_border_name(base->border), base->width, base->height, out->model.rows_per_item, out->model.cols_per_item,
            cls_partition_name(out->best_partition), out->best_group.width, out->best_group.height, out->best_us,
            cls_partition_name(out->model.partition), out->model.group_width, out->model.group_height, out->model_us,
            out->naive_us, out->isp_us, out->naive_registers, out->isp_registers, out->isp_match);
    fflush(csv);
}

int model_check_run(bench_env *env, const model_check_grid *grid)
{
    printf("model check on %s: the models' choice against the best of %zu partitions x %zu work-group "
           "shapes (median of %d runs each)\n",
           cls_context_device(env->context)->name, sizeof PARTITIONS / sizeof PARTITIONS[0], grid->group_count,
           env->runs);
    printf("%-18s %-9s %-11s %-9s %-9s %9s  %-9s %-9s %9s %7s  %9s %9s %s\n", "operator", "border", "size", "best",
           "shape", "us", "model", "shape", "us", "loss", "naive us", "isp us", "ISP match");
    FILE *csv = NULL;
    if (grid->csv_path && !(csv = fopen(grid->csv_path, "w"))) {
        fprintf(stderr, "clstencil bench: cannot write %s: %s\n", grid->csv_path, strerror(errno));
        return EXIT_OUTPUT;
    }
    csv_header(csv);
    size_t cases = 0, ran = 0, within5 = 0, within10 = 0, isp_matches = 0;
    double log_loss = 0.0;
    int bad_op = 0;
    for (size_t o = 0; o < grid->op_count && !bad_op; ++o)
        for (size_t s = 0; s < grid->size_count && !bad_op; ++s)
            for (size_t b = 0; b < grid->border_count; ++b) {
                cls_operator *op = NULL;
                if (cls_operator_parse(grid->ops[o], &op) != CLS_OK) {
                    fprintf(stderr, "clstencil bench: --op %s: %s\n", grid->ops[o], cls_last_error());
                    bad_op = 1;
                    break;
                }
                bench_case base = {.application = "model-check", .label = cls_operator_name(op), .variant = "",
                                   .ops = {grid->ops[o]}, .op_count = 1, .layout = BENCH_CHAIN,
                                   .border = grid->borders[b], .border_value = grid->border_value,
                                   .width = grid->sizes[s].width, .height = grid->sizes[s].height};
                bench_knobs_init(&base.knobs);
                const case_outcome out = check_case(env, grid, &base);
                csv_row(csv, &base, &out);
                cls_operator_release(op);
                ++cases;
                if (!out.ran) continue;
                ++ran;
                const double ratio = out.model_us / out.best_us;
                within5 += ratio <= 1.05;
                within10 += ratio <= 1.10;
                isp_matches += out.isp_match;
                log_loss += log(ratio);
            }
    if (csv) fclose(csv);
    if (bad_op) return 1;
    if (!ran) {
        fprintf(stderr, "clstencil bench: no case of the model check ran\n");
        return 3;
    }
    printf("\n%zu of %zu cases ran: the models' choice is within 5%% of the best in %zu (%.0f%%), within 10%% in "
           "%zu (%.0f%%); geometric-mean loss %.1f%%; the ISP-versus-naive choice matches the faster in %zu "
           "(%.0f%%)\n",
           ran, cases, within5, 100.0 * (double)within5 / (double)ran, within10, 100.0 * (double)within10 / (double)ran,
           100.0 * (exp(log_loss / (double)ran) - 1.0), isp_matches, 100.0 * (double)isp_matches / (double)ran);
    return ran == cases ? 0 : 3;
}
