/* bench_report.c — what `clstencil bench` prints and writes: the terminal table (row by row as
 * the measurements come), the geometric means of the speedups over naive, and CSV, JSON
 * (json-c) and SVG (drawn by gnuplot when it is on PATH) files. */
#include "bench.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- derived numbers */

double bench_row_gbps(const bench_row *row)
{
    const bench_result *r = row->result;
    return r->outcome == BENCH_OK && r->kernel_us > 0 ? r->bytes / (r->kernel_us * 1e3) : 0;
}

double bench_row_speedup(const bench_row *row)
{
    if (!row->naive || row->result->outcome != BENCH_OK || row->naive->outcome != BENCH_OK) return 0;
    return row->result->kernel_us > 0 ? row->naive->kernel_us / row->result->kernel_us : 0;
}

static const char *outcome_name(bench_outcome outcome)
{
    switch (outcome) {
    case BENCH_OK: return "ok";
    case BENCH_UNSUPPORTED: return "unsupported";
    case BENCH_ERROR: return "error";
    case BENCH_MISMATCH: return "mismatch";
    }
    return "?";
}

static void size_text(const bench_case *c, char *text, size_t size)
{
    if (c->depth > 1) snprintf(text, size, "%ux%ux%u", c->width, c->height, c->depth);
    else snprintf(text, size, "%ux%u", c->width, c->height);
}

static void group_text(unsigned width, unsigned height, char *text, size_t size)
{
    if (width) snprintf(text, size, "%ux%u", width, height);
    else snprintf(text, size, "auto");
}

static const char *mask_name(int bake) { return bake < 0 ? "operator" : bake ? "baked" : "runtime"; }

/* ---------------------------------------------------------------- geometric means */

typedef struct geomean {
    const char *application, *variant;
    double log_sum;
    int count;
} geomean;

/* The geometric mean of the speedup over naive per application and variant, in order of first
 * appearance; rows that are naive themselves are left out. Returns the number of groups. */
static size_t compute_geomeans(const bench_report *report, geomean *groups, size_t capacity)
{
    size_t count = 0;
    for (size_t i = 0; i < report->count; ++i) {
        const bench_row *row = &report->rows[i];
        const double speedup = bench_row_speedup(row);
        if (speedup <= 0 || row->c->knobs.partition == CLS_PARTITION_NAIVE) continue;
        size_t g = 0;
        while (g < count && (strcmp(groups[g].application, row->c->application) != 0 ||
                             strcmp(groups[g].variant, row->c->variant) != 0))
            ++g;
        if (g == count) {
            if (count == capacity) continue;
            groups[count++] = (geomean){row->c->application, row->c->variant, 0, 0};
        }
        groups[g].log_sum += log(speedup);
        groups[g].count++;
    }
    return count;
}

enum { MAX_GEOMEANS = 256 };

/* ---------------------------------------------------------------- the terminal table */

void bench_table_header(FILE *out, const bench_report *report)
{
    const cls_device_caps *d = report->device;
    fprintf(out, "device %s (%s, driver %s)\n", d->name, d->platform_name, d->driver_version);
    if (report->check)
        fprintf(out, "%s: outputs of %d run(s) checked against the plain global variant (naive partition, global "
                     "input, the operator's mask storage)\n",
                report->suite ? report->suite : "bench", report->runs);
    else
        fprintf(out, "%s: f32, median kernel time of %d runs after %d warm-up runs (OpenCL profiling events), next "
                     "to a device copy of the input's bytes in the same run\n",
                report->suite ? report->suite : "bench", report->runs, report->warmup);
    fprintf(out, "%-10s %-*s %-*s %-9s %-10s", "app", report->label_width, "operator", report->variant_width, "variant",
            "border", "size");
    if (report->check) fprintf(out, " check\n");
    else {
        fprintf(out, " %10s %9s %7s %7s", "kernel us", "copy us", "ratio", "GB/s");
        if (report->compare) fprintf(out, " %10s %7s", "naive us", "speedup");
        fprintf(out, "  chosen\n");
    }
    fflush(out);
}

void bench_table_row(FILE *out, const bench_report *report, const bench_row *row)
{
    const bench_case *c = row->c;
    const bench_result *r = row->result;
    char size[32];
    size_text(c, size, sizeof size);
    fprintf(out, "%-10s %-*s %-*s %-9s %-10s", c->application, report->label_width, c->label, report->variant_width,
            c->variant, cls_border_name(c->border), size);
    if (r->outcome != BENCH_OK) fprintf(out, " %s: %s\n", outcome_name(r->outcome), r->note);
    else if (report->check) fprintf(out, " ok\n");
    else {
        fprintf(out, " %10.1f %9.1f %7.2f %7.1f", r->kernel_us, r->copy_us, r->kernel_us / r->copy_us, bench_row_gbps(row));
        if (report->compare) {
            const double speedup = bench_row_speedup(row);
            if (speedup > 0) fprintf(out, " %10.1f %7.2f", row->naive->kernel_us, speedup);
            else fprintf(out, " %10s %7s", "-", "-");
        }
        char group[32];
        group_text(r->group_width, r->group_height, group, sizeof group);
        fprintf(out, "  %s %s", cls_partition_name(r->partition), group);
        if (r->rows > 1) fprintf(out, " rows %u", r->rows);
        if (r->cols > 1) fprintf(out, " cols %u", r->cols);
        if (r->separable == CLS_SEPARABLE_SINGLE_PASS || r->separable == CLS_SEPARABLE_TWO_PASS ||
            r->separable == CLS_SEPARABLE_LOW_RANK)
            fprintf(out, " separable %s", cls_separable_name(r->separable));
        if (r->method == CLS_METHOD_FFT) fprintf(out, " fft");
        if (r->registers) fprintf(out, " (%u registers)", r->registers);
        fputc('\n', out);
    }
    fflush(out);
}

void bench_table_geomeans(FILE *out, const bench_report *report)
{
    if (!report->compare || report->check) return;
    geomean groups[MAX_GEOMEANS];
    const size_t count = compute_geomeans(report, groups, MAX_GEOMEANS);
    if (count == 0) return;
    fprintf(out, "\ngeometric mean of the speedup over naive:\n");
    for (size_t g = 0; g < count; ++g) {
        fprintf(out, "  %-10s %-16s %6.3f  (n = %d)", groups[g].application, groups[g].variant,
                exp(groups[g].log_sum / groups[g].count), groups[g].count);
        const double paper = bench_suite_paper_speedup(report->suite, groups[g].application, groups[g].variant);
        if (paper > 0) fprintf(out, "  ISP paper %.3f", paper);
        fprintf(out, "\n");
    }
}

/* ---------------------------------------------------------------- CSV */

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *text, int last)
{
    if (strpbrk(text, ",\"\n")) {
        fputc('"', out);
        for (const char *p = text; *p; ++p) {
            if (*p == '"') fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(text, out);
    }
    fputc(last ? '\n' : ',', out);
}

static void csv_number(FILE *out, double value, int available)
{
    if (available) fprintf(out, "%.6g", value);
    fputc(',', out);
}

static const char *const CSV_COLUMNS[] = {
    "suite", "application", "operator", "variant", "border", "width", "height", "partition", "input", "separable",
    "rows", "cols", "group", "mask", "fold", "merged", "outcome", "kernel_us", "copy_us", "ratio", "effective_gbps",
    "naive_us", "speedup", "chosen_partition", "chosen_group", "chosen_rows", "chosen_cols", "registers", "runs", "note"};

static void csv_row(FILE *out, const bench_report *report, const bench_row *row)
{
    const bench_case *c = row->c;
    const bench_knobs *k = &c->knobs;
    const bench_result *r = row->result;
    char number[64], group[32];
    csv_field(out, report->suite ? report->suite : "custom", 0);
    csv_field(out, c->application, 0);
    csv_field(out, c->label, 0);
    csv_field(out, c->variant, 0);
    csv_field(out, cls_border_name(c->border), 0);
    fprintf(out, "%u,%u,", c->width, c->height);
    csv_field(out, cls_partition_name(k->partition), 0);
    csv_field(out, cls_input_path_name(k->input_path), 0);
    csv_field(out, cls_separable_name(k->separable), 0);
    if (k->rows) fprintf(out, "%u,", k->rows);
    else fputs("auto,", out); /* the device's policy: chosen_rows says what it gave */
    if (k->cols) fprintf(out, "%u,", k->cols);
    else fputs("auto,", out);
    group_text(k->group_width, k->group_height, group, sizeof group);
    csv_field(out, group, 0);
    csv_field(out, mask_name(k->bake), 0);
    fprintf(out, "%d,%d,", k->fold, k->merge);
    csv_field(out, outcome_name(r->outcome), 0);
    const int timed = r->outcome == BENCH_OK && !report->check;
    const double speedup = bench_row_speedup(row);
    csv_number(out, r->kernel_us, timed);
    csv_number(out, r->copy_us, timed);
    csv_number(out, timed ? r->kernel_us / r->copy_us : 0, timed);
    csv_number(out, bench_row_gbps(row), timed);
    csv_number(out, speedup > 0 ? row->naive->kernel_us : 0, timed && speedup > 0);
    csv_number(out, speedup, timed && speedup > 0);
    csv_field(out, r->outcome == BENCH_OK ? cls_partition_name(r->partition) : "", 0);
    group_text(r->group_width, r->group_height, group, sizeof group);
    csv_field(out, r->outcome == BENCH_OK ? group : "", 0);
    snprintf(number, sizeof number, "%u", r->rows);
    csv_field(out, r->outcome == BENCH_OK ? number : "", 0);
    snprintf(number, sizeof number, "%u", r->cols);
    csv_field(out, r->outcome == BENCH_OK ? number : "", 0);
    snprintf(number, sizeof number, "%u", r->registers); /* empty where the device does not say */
    csv_field(out, r->outcome == BENCH_OK && r->registers ? number : "", 0);
    snprintf(number, sizeof number, "%d", report->runs);
    csv_field(out, number, 0);
    csv_field(out, r->note, 1);
}

static FILE *open_output(const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out) fprintf(stderr, "clstencil bench: cannot write %s: %s\n", path, strerror(errno));
    return out;
}

static int close_output(FILE *out, const char *path)
{
    const int failed = ferror(out) | fclose(out);
    if (failed) fprintf(stderr, "clstencil bench: writing %s failed: %s\n", path, strerror(errno));
    return !failed;
}

int bench_write_csv(const bench_report *report, const char *path)
{
    FILE *out = open_output(path);
    if (!out) return 0;
    const size_t columns = sizeof CSV_COLUMNS / sizeof CSV_COLUMNS[0];
    for (size_t i = 0; i < columns; ++i) csv_field(out, CSV_COLUMNS[i], i + 1 == columns);
    for (size_t i = 0; i < report->count; ++i) csv_row(out, report, &report->rows[i]);
    return close_output(out, path);
}

/* ---------------------------------------------------------------- JSON */

static json_object *json_number_or_null(double value, int available)
{
    return available ? json_object_new_double(value) : NULL;
}

static json_object *json_row(const bench_report *report, const bench_row *row)
{
    const bench_case *c = row->c;
    const bench_knobs *k = &c->knobs;
    const bench_result *r = row->result;
    json_object *o = json_object_new_object();
    char group[32];
    json_object_object_add(o, "application", json_object_new_string(c->application));
    json_object_object_add(o, "operator", json_object_new_string(c->label));
    json_object *ops = json_object_new_array();
    for (size_t i = 0; i < c->op_count; ++i) json_object_array_add(ops, json_object_new_string(c->ops[i]));
    json_object_object_add(o, "operators", ops);
    json_object_object_add(o, "variant", json_object_new_string(c->variant));
    json_object_object_add(o, "border", json_object_new_string(cls_border_name(c->border)));
    json_object_object_add(o, "width", json_object_new_int((int)c->width));
    json_object_object_add(o, "height", json_object_new_int((int)c->height));
    if (c->depth > 1) json_object_object_add(o, "depth", json_object_new_int((int)c->depth));
    json_object_object_add(o, "partition", json_object_new_string(cls_partition_name(k->partition)));
    json_object_object_add(o, "input", json_object_new_string(cls_input_path_name(k->input_path)));
    json_object_object_add(o, "separable", json_object_new_string(cls_separable_name(k->separable)));
    json_object_object_add(o, "method", json_object_new_string(cls_method_name(k->method)));
    json_object_object_add(o, "rows", k->rows ? json_object_new_int((int)k->rows) : json_object_new_string("auto"));
    json_object_object_add(o, "cols", k->cols ? json_object_new_int((int)k->cols) : json_object_new_string("auto"));
    group_text(k->group_width, k->group_height, group, sizeof group);
    json_object_object_add(o, "group", json_object_new_string(group));
    json_object_object_add(o, "mask", json_object_new_string(mask_name(k->bake)));
    json_object_object_add(o, "fold", json_object_new_boolean(k->fold));
    json_object_object_add(o, "merged", json_object_new_boolean(k->merge));
    json_object_object_add(o, "outcome", json_object_new_string(outcome_name(r->outcome)));
    json_object_object_add(o, "note", json_object_new_string(r->note));
    const int timed = r->outcome == BENCH_OK && !report->check;
    const double speedup = bench_row_speedup(row);
    json_object_object_add(o, "kernel_us", json_number_or_null(r->kernel_us, timed));
    json_object_object_add(o, "copy_us", json_number_or_null(r->copy_us, timed));
    json_object_object_add(o, "ratio", json_number_or_null(timed ? r->kernel_us / r->copy_us : 0, timed));
    json_object_object_add(o, "effective_gbps", json_number_or_null(bench_row_gbps(row), timed));
    if (report->compare) {
        json_object_object_add(o, "naive_us", json_number_or_null(speedup > 0 ? row->naive->kernel_us : 0, timed && speedup > 0));
        json_object_object_add(o, "speedup", json_number_or_null(speedup, timed && speedup > 0));
    }
    if (r->outcome == BENCH_OK) {
        json_object_object_add(o, "chosen_partition", json_object_new_string(cls_partition_name(r->partition)));
        group_text(r->group_width, r->group_height, group, sizeof group);
        json_object_object_add(o, "chosen_group", json_object_new_string(group));
        json_object_object_add(o, "chosen_rows", json_object_new_int((int)r->rows));
        json_object_object_add(o, "chosen_cols", json_object_new_int((int)r->cols));
        json_object_object_add(o, "chosen_separable", json_object_new_string(cls_separable_name(r->separable)));
        json_object_object_add(o, "chosen_method", json_object_new_string(cls_method_name(r->method)));
        if (r->registers) json_object_object_add(o, "registers", json_object_new_int((int)r->registers));
    }
    return o;
}

static json_object *json_device(const cls_device_caps *d)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(d->name));
    json_object_object_add(o, "vendor", json_object_new_string(cls_vendor_name(d->vendor)));
    json_object_object_add(o, "platform", json_object_new_string(d->platform_name));
    json_object_object_add(o, "platform_version", json_object_new_string(d->platform_version));
    json_object_object_add(o, "driver_version", json_object_new_string(d->driver_version));
    return o;
}

static json_object *json_geomeans(const bench_report *report)
{
    json_object *array = json_object_new_array();
    geomean groups[MAX_GEOMEANS];
    const size_t count = report->compare && !report->check ? compute_geomeans(report, groups, MAX_GEOMEANS) : 0;
    for (size_t g = 0; g < count; ++g) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "application", json_object_new_string(groups[g].application));
        json_object_object_add(o, "variant", json_object_new_string(groups[g].variant));
        json_object_object_add(o, "speedup", json_object_new_double(exp(groups[g].log_sum / groups[g].count)));
        json_object_object_add(o, "configurations", json_object_new_int(groups[g].count));
        const double paper = bench_suite_paper_speedup(report->suite, groups[g].application, groups[g].variant);
        if (paper > 0) json_object_object_add(o, "paper", json_object_new_double(paper));
        json_object_array_add(array, o);
    }
    return array;
}

int bench_write_json(const bench_report *report, const char *path)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "library_version", json_object_new_string(cls_version()));
    json_object_object_add(root, "suite", report->suite ? json_object_new_string(report->suite) : NULL);
    json_object_object_add(root, "mode", json_object_new_string(report->check ? "check" : "timing"));
    json_object_object_add(root, "device", json_device(report->device));
    json_object_object_add(root, "runs", json_object_new_int(report->runs));
    json_object_object_add(root, "warmup", json_object_new_int(report->warmup));
    json_object *rows = json_object_new_array();
    for (size_t i = 0; i < report->count; ++i) json_object_array_add(rows, json_row(report, &report->rows[i]));
    json_object_object_add(root, "rows", rows);
    json_object_object_add(root, "geomeans", json_geomeans(report));
    FILE *out = open_output(path);
    int ok = out != NULL;
    if (out) {
        fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
        ok = close_output(out, path);
    }
    json_object_put(root);
    return ok;
}

/* ---------------------------------------------------------------- SVG through gnuplot */

static int gnuplot_on_path(void)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char candidate[4096];
    for (const char *p = path; *p;) {
        const size_t length = strcspn(p, ":");
        snprintf(candidate, sizeof candidate, "%.*s/gnuplot", (int)length, p);
        if (length > 0 && access(candidate, X_OK) == 0) return 1;
        p += length + (p[length] == ':');
    }
    return 0;
}

/* A gnuplot single-quoted string: quotes doubled. */
static void gnuplot_quoted(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *p = text; *p; ++p) {
        if (*p == '\'') fputc('\'', out);
        fputc(*p, out);
    }
    fputc('\'', out);
}

/* One bar per measured row: the speedup over naive when compared, else the ratio to the copy. */
/* tune: kernel time against work-items per group, a point per configuration (the shape of
 * Hipacc's configuration-exploration figure). */
static void gnuplot_threads_script(FILE *out, const bench_report *report, const char *path)
{
    fprintf(out, "set terminal svg size 900,600 dynamic noenhanced font 'sans,10' background rgb 'white'\nset output ");
    gnuplot_quoted(out, path);
    char title[512];
    snprintf(title, sizeof title, "clstencil tune on %s: %s %s %ux%u", report->device->name, report->rows[0].c->label,
             cls_border_name(report->rows[0].c->border), report->rows[0].c->width, report->rows[0].c->height);
    fprintf(out, "\nset title ");
    gnuplot_quoted(out, title);
    fprintf(out, "\nset logscale x 2\nset grid\nset key off\nset xlabel 'work-items per group'\n"
                 "set ylabel 'kernel time (us)'\n$data << EOD\n");
    for (size_t i = 0; i < report->count; ++i) {
        const bench_result *r = report->rows[i].result;
        if (r->outcome == BENCH_OK)
            fprintf(out, "%u %.3f\n", r->group_width * r->group_height, r->kernel_us);
    }
    fprintf(out, "EOD\nplot $data using 1:2 with points pt 7 ps 0.6 lc rgb '#4477aa'\n");
}

static void gnuplot_script(FILE *out, const bench_report *report, const char *path)
{
    if (report->plot_threads) {
        gnuplot_threads_script(out, report, path);
        return;
    }
    const int speedups = report->compare;
    const unsigned width = report->count * 14 + 200 > 800 ? (unsigned)report->count * 14 + 200 : 800;
    fprintf(out, "set terminal svg size %u,640 dynamic noenhanced font 'sans,10' background rgb 'white'\nset output ", width);
    gnuplot_quoted(out, path);
    fprintf(out, "\nset title ");
    char title[512];
    snprintf(title, sizeof title, "clstencil bench%s%s on %s: %s", report->suite ? " --suite " : "",
             report->suite ? report->suite : "", report->device->name,
             speedups ? "speedup over naive" : "kernel time / device copy time");
    gnuplot_quoted(out, title);
    if (speedups) fprintf(out, "\nset arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2");
    fprintf(out, "\nset style data histograms\nset style fill solid 0.8 border -1\nset boxwidth 0.8\n"
                 "set xtics rotate by -70 font ',7' nomirror\nset grid ytics\nset key off\nset yrange [0:*]\n"
                 "set ylabel '%s'\n$data << EOD\n",
            speedups ? "speedup over naive" : "kernel / copy");
    for (size_t i = 0; i < report->count; ++i) {
        const bench_row *row = &report->rows[i];
        const bench_result *r = row->result;
        const double value = speedups ? bench_row_speedup(row) : r->outcome == BENCH_OK ? r->kernel_us / r->copy_us : 0;
        if (value <= 0) continue;
        fprintf(out, "\"%s %s %s %ux%u\" %.4f\n", row->c->label, row->c->variant,
                cls_border_name(row->c->border), row->c->width, row->c->height, value);
    }
    fprintf(out, "EOD\nplot $data using 2:xtic(1) lc rgb '#4477aa'\n");
}

int bench_write_svg(const bench_report *report, const char *path)
{
    if (report->check) {
        fprintf(stderr, "clstencil bench: note: --short checks outputs and times nothing; no SVG written to %s\n", path);
        return 1;
    }
    if (!gnuplot_on_path()) {
        fprintf(stderr, "clstencil bench: note: gnuplot is not on PATH; no SVG written to %s "
                        "(install gnuplot, or plot the --csv or --json output)\n", path);
        return 1;
    }
    FILE *gnuplot = popen("gnuplot", "w");
    if (!gnuplot) {
        fprintf(stderr, "clstencil bench: cannot start gnuplot: %s\n", strerror(errno));
        return 0;
    }
    gnuplot_script(gnuplot, report, path);
    const int status = pclose(gnuplot);
    if (status != 0) fprintf(stderr, "clstencil bench: gnuplot failed drawing %s\n", path);
    return status == 0;
}
