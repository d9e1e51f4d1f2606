/* cross_sources.c — the generated programs of every variant family, planned for a device record
 * without the device, for an offline compiler (tools/cross_check/cross-compile-check), and the
 * occupancy the library's model gives a compiled kernel's registers and local memory.
 *   cls_cross_sources sources RECORD DIR [--borders]
 *                                          writes DIR/NNN-FAMILY-K.cl, one file per program, and
 *                                          DIR/manifest.tsv: file, family, work-items per group
 *                                          (0: the launch chooses), the SIMD width in the source;
 *                                          --borders: every family in each of the six border
 *                                          modes (FAMILY-MODE), not only its own, and a line
 *                                          "-, FAMILY-MODE, why" where the library refuses it
 *   cls_cross_sources occupancy RECORD     reads "VGPRS LDS_BYTES GROUP_ITEMS" lines, writes
 *                                          "WAVES_PER_SIMD RESIDENT_GROUPS LIMITS" lines
 *   cls_cross_sources plan RECORD OPERATOR WxH
 *                                          `auto`'s models for the operator on the record's AMD
 *                                          GPU, their builds compiled offline (cross_plan.c)
 * The caps are those the record's device reports to OpenCL (cross_device.c); the planner takes
 * the record's policy, as `auto` does on a device without tuning results. */
#include "cross_check.h"

#include "elementwise.h"
#include "fft_kernels.h"
#include "staged_body.h"
#include "van_herk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the programs go: the folder, the manifest, the family being written and its count. */
typedef struct sink {
    const char *dir;
    FILE *manifest;
    unsigned family_index, program_index;
    char family[96]; /* the family's name, and its border mode's where every mode is written */
} sink;

static int write_program(sink *out, const char *source, unsigned group_items, unsigned simd_width)
{
    if (!source) return 0; /* out of memory */
    char name[160], path[4096];
    snprintf(name, sizeof name, "%03u-%s-%u.cl", out->family_index, out->family, ++out->program_index);
    snprintf(path, sizeof path, "%s/%s", out->dir, name);
    FILE *file = fopen(path, "w");
    if (!file || fputs(source, file) == EOF || fclose(file) != 0) {
        fprintf(stderr, "cls_cross_sources: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    fprintf(out->manifest, "%s\t%s\t%u\t%u\n", name, out->family, group_items, simd_width);
    return 1;
}

/* The programs that a filter of SPEC builds on the planner's device, as host/filter.c and
 * host/staged_filter.c choose them: a staged body's stages (van Herk for its extremum stages) and
 * combination and the fused kernel of its two stages, an FFT's kernels, a two-pass pair, or one
 * kernel. */
static int emit_programs(const cls_planner *planner, const cls_spec *spec, sink *out)
{
    if (spec->body && cls_body_is_staged(spec->body)) {
        cls_staged_body staged;
        if (cls_staged_body_split(spec, &staged) != CLS_OK) return 0;
        int ok = 1;
        for (unsigned k = 0; ok && k < staged.count; ++k) {
            const cls_spec stage = cls_staged_stage_spec(spec, &staged, k);
            if (cls_stage_runs_body(&staged.stages[k])) {
                ok = emit_programs(planner, &stage, out);
                continue;
            }
            cls_van_herk_launch launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_STRIPS); /* a GPU walks strips */
            if (k + 1 == staged.count && cls_staged_folds_combine(&staged))
                launch.combine = staged.combine, launch.source_type = spec->input_type;
            char *source = cls_van_herk_source(&stage, staged.stages[k].kind == CLS_STAGE_MAXIMUM, &launch);
            ok = write_program(out, source, launch.vertical ? 0 : launch.group_width * launch.group_height, 0);
            free(source);
        }
        if (ok && staged.combine && !cls_staged_folds_combine(&staged)) {
            char *source = cls_combine_source(staged.combine, spec->input_type, spec->output_type, 1);
            ok = write_program(out, source, 0, 0);
            free(source);
        }
        if (ok && cls_staged_fuses(spec, &staged, planner->caps->local_mem_size)) { /* a GPU may run both as one */
            const cls_van_herk_launch launch = cls_fused_stages_launch();
            char *source = cls_fused_stages_source(spec, &staged);
            ok = write_program(out, source, launch.group_width * launch.group_height, 0);
            free(source);
        }
        cls_staged_body_free(&staged);
        return ok;
    }
    cls_kernel_config config;
    if (cls_plan_policy(planner, spec, &config) != CLS_OK) return 0;
    int ok;
    if (config.method == CLS_METHOD_FFT) {
        char *source = cls_fft_kernels_source(&config.spec);
        ok = write_program(out, source, 0, 0);
        free(source);
        if (ok && cls_fft_tile_fits(&config.spec, CLS_FFT_TILE_MAX_MASK)) { /* the one kernel, where a record takes it */
            source = cls_fft_tile_source(&config);
            ok = write_program(out, source, CLS_FFT_TILE_GROUP, 0);
            free(source);
        }
    } else if (config.separable == CLS_SEPARABLE_TWO_PASS) {
        cls_spec row_pass, column_pass;
        cls_two_pass_specs(&config, &row_pass, &column_pass);
        ok = emit_programs(planner, &row_pass, out) && emit_programs(planner, &column_pass, out);
    } else {
        char *source = cls_emit_source(&config);
        ok = write_program(out, source, config.group_width * config.group_height,
                           config.partition == CLS_PARTITION_ISP_WARP ? config.simd_width : 0);
        free(source);
    }
    cls_kernel_config_free(&config);
    return ok;
}

/* An element-wise stage of a pipeline: two images of different types into an f16 image. */
static int emit_elementwise(sink *out)
{
    const char *names[] = {"edges", "smooth"};
    const cls_pixel_type types[] = {CLS_PIXEL_F32, CLS_PIXEL_U8};
    char *source = cls_elementwise_source("clamp(edges * 0.5f + smooth, 0.0f, 255.0f)", names, types, 2, CLS_PIXEL_F16);
    const int ok = write_program(out, source, 0, 0);
    free(source);
    return ok;
}

static const cls_border ALL_BORDERS[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP, CLS_BORDER_MIRROR,
                                         CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};

/* Family INDEX's programs, in its own border mode or (BORDER_INDEX below 6) in ALL_BORDERS'. */
static int write_family(const cls_planner *planner, size_t index, int border_index, sink *out)
{
    cls_cross_family family;
    snprintf(out->family, sizeof out->family, "%s%s%s", cls_cross_family_name(index), border_index < 0 ? "" : "-",
             border_index < 0 ? "" : cls_border_name(ALL_BORDERS[border_index]));
    out->program_index = 0;
    int ok = cls_cross_family_spec(index, &family);
    if (ok && border_index >= 0) family.spec.border = ALL_BORDERS[border_index];
    if (ok) ok = family.elementwise ? emit_elementwise(out) : emit_programs(planner, &family.spec, out);
    cls_cross_family_free(&family);
    return ok;
}

static int write_sources(const cls_arch_record *record, const char *dir, int every_border)
{
    cls_device_caps caps;
    cls_cross_device_caps(record, &caps);
    const cls_planner planner = {.caps = &caps, .record = record};
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.tsv", dir);
    sink out = {.dir = dir, .manifest = fopen(path, "w")};
    if (!out.manifest) {
        fprintf(stderr, "cls_cross_sources: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    int ok = 1;
    for (size_t k = 0; ok && k < cls_cross_family_count(); ++k)
        for (int b = every_border ? 0 : -1; ok && b < (every_border ? 6 : 0); ++b) {
            ++out.family_index;
            if (write_family(&planner, k, b, &out)) continue;
            /* the undefined border refuses blocks of outputs and two passes: listed, not compiled */
            if (b >= 0 && ALL_BORDERS[b] == CLS_BORDER_UNDEFINED) {
                fprintf(out.manifest, "-\t%s\t%s\t0\n", out.family, cls_last_error());
            } else {
                fprintf(stderr, "cls_cross_sources: %s: %s\n", out.family, cls_last_error());
                ok = 0;
            }
        }
    if (fclose(out.manifest) != 0) ok = 0;
    return ok;
}

/* occupancy: the model's resident waves per SIMD for each "VGPRS LDS GROUP_ITEMS" line. */
static int print_occupancy(const cls_arch_record *record)
{
    cls_occupancy_extras extras;
    cls_occupancy_extras_default(record, &extras);
    unsigned registers, local_bytes, group_items;
    while (scanf("%u %u %u", &registers, &local_bytes, &group_items) == 3) {
        const cls_kernel_usage usage = {registers, local_bytes};
        cls_occupancy occupancy;
        if (cls_occupancy_compute(record, &extras, &usage, group_items, &occupancy) != CLS_OK) {
            fprintf(stderr, "cls_cross_sources: occupancy of %u %u %u: %s\n", registers, local_bytes, group_items,
                    cls_last_error());
            return 0;
        }
        printf("%g %u", (double)occupancy.resident_warps / extras.register_partitions, occupancy.resident_groups);
        const char *separator = " ";
        for (unsigned flag = 1; flag <= CLS_LIMIT_LOCAL_MEMORY; flag <<= 1)
            if (occupancy.limits & flag) {
                printf("%s%s", separator, cls_occupancy_limit_name(flag));
                separator = ",";
            }
        printf("\n");
    }
    return !ferror(stdout);
}

int main(int argc, char **argv)
{
    const int every_border = argc == 5 && strcmp(argv[4], "--borders") == 0;
    const int sources = (argc == 4 || every_border) && strcmp(argv[1], "sources") == 0;
    const int plan = argc == 5 && strcmp(argv[1], "plan") == 0;
    unsigned width = 0, height = 0;
    if (plan && (sscanf(argv[4], "%ux%u", &width, &height) != 2 || !width || !height)) {
        fprintf(stderr, "cls_cross_sources: plan wants the image size as WxH, not '%s'\n", argv[4]);
        return 2;
    }
    if (!sources && !plan && !(argc == 3 && strcmp(argv[1], "occupancy") == 0)) {
        fprintf(stderr, "usage: cls_cross_sources sources RECORD DIR [--borders] | occupancy RECORD | "
                        "plan RECORD OPERATOR WxH\n");
        return 2;
    }
    cls_device_db *db = NULL;
    if (cls_device_db_load("", &db) != CLS_OK) {
        fprintf(stderr, "cls_cross_sources: %s\n", cls_last_error());
        return 1;
    }
    const cls_arch_record *record = NULL;
    for (size_t k = 0; k < cls_device_db_count(db) && !record; ++k)
        if (strcmp(cls_device_db_get(db, k)->id, argv[2]) == 0) record = cls_device_db_get(db, k);
    int ok = 0;
    if (!record) fprintf(stderr, "cls_cross_sources: no built-in record '%s'\n", argv[2]);
    else ok = sources ? write_sources(record, argv[3], every_border)
              : plan  ? cls_cross_plan(record, argv[3], width, height)
                      : print_occupancy(record);
    cls_device_db_release(db);
    return ok ? 0 : 1;
}
