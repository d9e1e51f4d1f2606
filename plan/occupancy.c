/* occupancy.c — how many work-groups and warps of a kernel a compute unit holds at once, and
 * the three occupancies of Guerfi et al. ("Towards Automatic Block Size Tuning for Image
 * Processing Algorithms on CUDA", eqs. 3-12) for a problem size. Per-unit residency follows the
 * CUDA occupancy calculator (cuda_occupancy.h): registers allocated per warp in units, per
 * register-file partition; local memory in units, plus the driver's reserve per group. */
#include "models.h"

#include "error.h"

#include <string.h>
#include <strings.h>

static unsigned long div_up(unsigned long a, unsigned long b) { return (a + b - 1) / b; }
static unsigned long round_up(unsigned long a, unsigned long unit) { return unit ? div_up(a, unit) * unit : a; }
static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }

/* The compute capability of an "sm_XY" key as XY (sm_90 -> 90); 0 when there is none. */
static unsigned nvidia_capability(const char *arch)
{
    if (strncasecmp(arch, "sm_", 3) != 0) return 0;
    unsigned value = 0;
    for (const char *p = arch + 3; *p >= '0' && *p <= '9'; ++p) value = value * 10 + (unsigned)(*p - '0');
    return value;
}

void cls_occupancy_extras_default(const cls_arch_record *record, cls_occupancy_extras *extras)
{
    extras->register_partitions = 1;
    extras->local_mem_reserved_per_group = 0;
    extras->registers_per_group = record->registers_per_cu;
    if (record->type != CLS_DEVICE_GPU) return;
    if (record->vendor == CLS_VENDOR_NVIDIA) {
        const unsigned cc = nvidia_capability(record->arch);
        /* The calculator's rule starts with Kepler (3.0); Fermi and older get none here. */
        extras->register_partitions = cc == 60 ? 2 : cc != 0 && cc < 30 ? 1 : 4;
        /* No capability (the vendor fallback record): assume the reserve, which only lowers. */
        extras->local_mem_reserved_per_group = cc == 0 || cc >= 80 ? 1024 : 0;
        if (cc == 53 || cc == 62 || cc == 72) extras->registers_per_group = 32768;
    } else if (record->vendor == CLS_VENDOR_AMD) {
        extras->register_partitions = 4; /* a wave's VGPRs come from its SIMD's file */
    }
}

/* Groups the register file holds: per warp, registers * SIMD width rounded up to the unit; each
 * partition holds whole warps (cudaOccMaxBlocksPerSMRegsLimit). Per-group allocation (records
 * with register_alloc = group) rounds the whole group's registers instead. */
static unsigned groups_by_registers(const cls_arch_record *r, const cls_occupancy_extras *x,
                                    unsigned registers, unsigned warps_per_group)
{
    if (registers == 0) return CLS_OCCUPANCY_UNLIMITED;
    if (r->max_registers_per_thread && registers > r->max_registers_per_thread) return 0;
    if (!r->register_alloc_per_warp) {
        const unsigned long per_group =
            round_up((unsigned long)registers * r->simd_width * warps_per_group, r->register_alloc_unit);
        if (per_group > x->registers_per_group) return 0;
        return (unsigned)(r->registers_per_cu / per_group);
    }
    const unsigned partitions = x->register_partitions ? x->register_partitions : 1;
    const unsigned long per_warp = round_up((unsigned long)registers * r->simd_width, r->register_alloc_unit);
    /* The hardware's per-group check assumes warps spread over every partition. */
    if (per_warp * round_up(warps_per_group, partitions) > x->registers_per_group) return 0;
    const unsigned long warps = r->registers_per_cu / partitions / per_warp * partitions;
    return (unsigned)(warps / warps_per_group);
}

/* Groups the local memory holds: the group's bytes plus the driver's reserve, rounded up. */
static unsigned groups_by_local(const cls_arch_record *r, const cls_occupancy_extras *x, unsigned bytes)
{
    const unsigned long per_group = round_up((unsigned long)bytes + x->local_mem_reserved_per_group,
                                             r->local_mem_alloc_unit);
    if (per_group == 0) return CLS_OCCUPANCY_UNLIMITED;
    return (unsigned)(r->local_mem_per_cu / per_group);
}

/* Resident warps a compute unit holds: the warp limit and the thread limit, whichever is less. */
static unsigned warp_budget(const cls_arch_record *r)
{
    const unsigned by_threads = r->max_threads_per_cu / r->simd_width;
    return r->max_warps_per_cu ? min_u(r->max_warps_per_cu, by_threads) : by_threads;
}

cls_status cls_occupancy_compute(const cls_arch_record *record, const cls_occupancy_extras *extras,
                                 const cls_kernel_usage *usage, unsigned group_items, cls_occupancy *out)
{
    if (!record || !usage || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "occupancy: NULL argument");
    if (record->simd_width == 0 || record->max_threads_per_cu < record->simd_width)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "occupancy: record %s has no SIMD width or thread limit",
                        record->id);
    if (group_items == 0) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "occupancy: empty work-group");
    cls_occupancy_extras defaults;
    if (!extras) {
        cls_occupancy_extras_default(record, &defaults);
        extras = &defaults;
    }
    memset(out, 0, sizeof *out);
    out->group_items = group_items;
    out->warps_per_group = (unsigned)div_up(group_items, record->simd_width); /* eq. 3 */
    out->max_warps = warp_budget(record);
    out->groups_by_warps = out->max_warps / out->warps_per_group;             /* eq. 4, thread limit */
    out->groups_by_groups = record->max_groups_per_cu;                        /* eq. 4, group limit */
    out->groups_by_registers = groups_by_registers(record, extras, usage->registers, out->warps_per_group);
    out->groups_by_local = groups_by_local(record, extras, usage->local_bytes);
    const unsigned by[4] = {out->groups_by_warps, out->groups_by_groups, out->groups_by_registers,
                            out->groups_by_local};
    unsigned least = by[0];
    for (int k = 1; k < 4; ++k) least = min_u(least, by[k]);
    for (int k = 0; k < 4; ++k)
        if (by[k] == least) out->limits |= 1u << k;
    out->resident_groups = least;
    out->resident_warps = least * out->warps_per_group;                       /* eq. 5 */
    out->occupancy = (double)out->resident_warps / out->max_warps;
    return CLS_OK;
}

const char *cls_occupancy_limit_name(unsigned flag)
{
    switch (flag) {
    case CLS_LIMIT_WARPS: return "warps";
    case CLS_LIMIT_GROUPS: return "groups";
    case CLS_LIMIT_REGISTERS: return "registers";
    case CLS_LIMIT_LOCAL_MEMORY: return "local memory";
    }
    return "none";
}

cls_status cls_problem_occupancy_compute(const cls_occupancy *unit, unsigned group_width,
                                         unsigned group_height, const cls_problem *problem,
                                         cls_problem_occupancy *out)
{
    if (!unit || !problem || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "occupancy: NULL argument");
    if (group_width == 0 || group_height == 0 || problem->compute_units == 0 || unit->max_warps == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "occupancy: empty group, device or record");
    memset(out, 0, sizeof *out);
    const unsigned rows = problem->rows_per_item ? problem->rows_per_item : 1;
    const unsigned cols = problem->cols_per_item ? problem->cols_per_item : 1;
    const unsigned long group_items = (unsigned long)group_width * group_height;
    out->elements = div_up(problem->width, cols) * div_up(problem->height, rows);
    out->grid_groups = div_up(problem->width, (unsigned long)group_width * cols) *
                       div_up(problem->height, (unsigned long)group_height * rows);   /* eq. 7 */
    if (unit->resident_groups == 0 || out->grid_groups == 0) return CLS_OK;
    const unsigned long units = problem->compute_units;
    out->device_groups = (unsigned long)unit->resident_groups * units;                /* eq. 8 */
    /* Eq. 9 prints G / (B_SM * MaxB_SM); B_device = B_SM * Nb_SM is meant (the two agree on their
     * Table 1 device, where MaxB_SM = Nb_SM = 16) and keeps O_B at most 1. */
    out->iterations = div_up(out->grid_groups, out->device_groups);
    const unsigned long last = out->grid_groups - out->device_groups * (out->iterations - 1);
    out->last_units = last < units ? last : units;                                     /* eq. 11 */
    out->warp = out->elements > group_items ? (double)unit->resident_warps / unit->max_warps : 0.0; /* eq. 6 */
    out->block = (double)out->grid_groups / ((double)out->device_groups * out->iterations); /* eq. 10 */
    /* Eq. 12 as printed, (Nb_SMlast + Nb_i - 1) / Nb_i, mixes a unit count with iterations; the
     * last iteration's busy share Nb_SMlast / Nb_SM is meant, so that O_SM lies in (0, 1]. */
    out->sm = ((double)out->last_units / units + (double)(out->iterations - 1)) / out->iterations;
    return CLS_OK;
}
