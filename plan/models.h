/* models.h — the analytic models of the plan stage (internal): resident work-groups and
 * occupancy per compute unit with the problem-level occupancies of Guerfi et al. (occupancy.c),
 * Hipacc's Algorithm 2 for the work-group shape (configure.c), and the ISP paper's
 * naive-versus-ISP prediction (isp_model.c). Pure C: no OpenCL calls, deterministic. */
#ifndef CLS_MODELS_H
#define CLS_MODELS_H

#include "clstencil_tuning.h"
#include "generator.h"

/* ---------------------------------------------------------------- occupancy per compute unit */

/* Architecture facts the occupancy model needs that cls_arch_record has no field for yet. */
typedef struct cls_occupancy_extras {
    /* Register-file partitions of a compute unit; a warp lives in one, so the register limit is
     * taken per partition (cuda_occupancy.h cudaOccSubPartitionsPerMultiprocessor: 4 from
     * compute capability 3.0 on, 2 on 6.0; AMD: the 4 SIMDs of a CU or WGP). 1 elsewhere. */
    unsigned register_partitions;
    /* Bytes of local memory the driver reserves per resident group (NVIDIA from 8.0 on: 1 KB,
     * cudaDeviceProp.reservedSharedMemPerBlock). */
    unsigned local_mem_reserved_per_group;
    /* Registers one work-group may hold (NVIDIA regsPerBlock: 32 K on sm_53/62/72, else the
     * compute unit's file). */
    unsigned registers_per_group;
} cls_occupancy_extras;

/* The extras of a record, from its vendor, type and architecture key. */
void cls_occupancy_extras_default(const cls_arch_record *record, cls_occupancy_extras *extras);

/* What a kernel build uses. */
typedef struct cls_kernel_usage {
    unsigned registers;   /* per work-item, from the build; 0: unknown, registers do not limit */
    unsigned local_bytes; /* local memory per work-group, bytes */
} cls_kernel_usage;

/* Which resources bound the resident groups (bit flags; ties set several). */
enum {
    CLS_LIMIT_WARPS = 1,        /* resident warps (and threads) per compute unit */
    CLS_LIMIT_GROUPS = 2,       /* resident work-groups per compute unit */
    CLS_LIMIT_REGISTERS = 4,    /* register file, with allocation granularity */
    CLS_LIMIT_LOCAL_MEMORY = 8  /* local memory, with allocation granularity */
};

#define CLS_OCCUPANCY_UNLIMITED 0xffffffffu /* a resource that sets no bound */

typedef struct cls_occupancy {
    unsigned group_items;        /* work-items per group */
    unsigned warps_per_group;    /* Guerfi eq. 3, rounded up */
    unsigned max_warps;          /* resident warps a compute unit can hold (MaxW_SM) */
    unsigned groups_by_warps, groups_by_groups, groups_by_registers, groups_by_local;
    unsigned resident_groups;    /* the least of the four (B_SM); 0 when one group does not fit */
    unsigned resident_warps;     /* W_SM, Guerfi eq. 5 */
    unsigned limits;             /* CLS_LIMIT_* flags of the resources that give resident_groups */
    double occupancy;            /* resident_warps / max_warps (the occupancy of Hipacc and of the
                                  * CUDA occupancy calculator) */
} cls_occupancy;

/* Resident groups and warps per compute unit for groups of group_items work-items. extras NULL:
 * cls_occupancy_extras_default(record). A group that does not fit is CLS_OK with
 * resident_groups 0; bad arguments are CLS_ERR_INVALID_ARGUMENT. */
cls_status cls_occupancy_compute(const cls_arch_record *record, const cls_occupancy_extras *extras,
                                 const cls_kernel_usage *usage, unsigned group_items, cls_occupancy *out);

/* "warps", "groups", "registers", "local memory" for one flag; "none" otherwise. */
const char *cls_occupancy_limit_name(unsigned flag);

/* ---------------------------------------------------------------- occupancy of a problem */

/* The output computed and the device it runs on. */
typedef struct cls_problem {
    unsigned width, height;   /* output pixels (the image or the region of interest) */
    unsigned rows_per_item;   /* coarsening; 0 means 1 */
    unsigned compute_units;   /* Nb_SM */
    unsigned cols_per_item;   /* coarsening along x; 0 means 1 */
} cls_problem;

/* Guerfi et al. eqs. 6-12 for one group shape. */
typedef struct cls_problem_occupancy {
    unsigned long elements;      /* Nb_ele: work-items with output, ceil(width / cols) * ceil(height / rows) */
    unsigned long grid_groups;   /* G_size, eq. 7 per axis: ceil(w / (tx * cols)) * ceil(h / (ty * rows)) */
    unsigned long device_groups; /* B_device, eq. 8 */
    unsigned long iterations;    /* Nb_i, eq. 9 */
    unsigned long last_units;    /* Nb_SMlast, eq. 11 */
    double warp;                 /* O_w, eq. 6 */
    double block;                /* O_B, eq. 10 */
    double sm;                   /* O_SM, eq. 12 divided by Nb_SM: the share of compute units busy */
} cls_problem_occupancy;

/* The three occupancies of a group shape whose per-unit residency is `unit`. A shape that does not
 * fit gives zeros. */
cls_status cls_problem_occupancy_compute(const cls_occupancy *unit, unsigned group_width,
                                         unsigned group_height, const cls_problem *problem,
                                         cls_problem_occupancy *out);

/* ---------------------------------------------------------------- Algorithm 2 (Hipacc) */

typedef struct cls_config_request {
    const cls_arch_record *record;
    const cls_occupancy_extras *extras; /* NULL: cls_occupancy_extras_default(record) */
    cls_kernel_usage usage;             /* of the build the shapes are for */
    size_t max_group_items;             /* CL_DEVICE_MAX_WORK_GROUP_SIZE (or the kernel's) */
    size_t max_item_sizes[2];           /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] and [1] */
    size_t max_local_bytes;             /* CL_DEVICE_LOCAL_MEM_SIZE; 0: not checked */
    int border_handling;                /* 1: the kernel has region code; minimize border work-items */
    cls_launch_geometry geometry;       /* image, region of interest and mask; group fields ignored */
    unsigned rows_per_item;             /* coarsening; 0 means 1 */
    unsigned cols_per_item;             /* coarsening along x; 0 means 1 */
    unsigned compute_units;             /* for the problem occupancies; 0: not computed */
    /* A departure from Algorithm 2 (0: none): among the shapes of the highest occupancy, those
     * whose group reads at most this many input pixels (its outputs and their halo) per output
     * pixel, where there are any. cls_model_choose sets CLS_WEIGHTED_SUM_INPUT_PER_OUTPUT for
     * built-in weighted sums. */
    double max_input_per_output;
    /* A second departure (0: none): only shapes of at least this many work-items compete, where
     * the device takes such groups. cls_model_choose sets CLS_BODY_MIN_GROUP_ITEMS for operator
     * bodies on GPUs. */
    size_t min_group_items;
} cls_config_request;

/* An operator body computes one output per work-item, so a group of a few warps does little work
 * for its scheduling. On an H200 (f32 4096^2, copy 33 us), Algorithm 2's 32x2 groups, full
 * occupancy at 32 resident groups a multiprocessor, took 163 us for a minimum over 1x1, 3x1, 3x3
 * and 5x5 windows and for a 3x3 median; 32x4 and 128x1 85 us (1x1, 3x1), 64x4 and 32x8 63-72;
 * with this floor 32x8: 64 (1x1), 80 (3x3), 110 (5x5), 129 us (median 3x3), the same as before at
 * 9x9 and 15x15, but twice as slow at 31x31 (5.2 against 2.6 ms): it holds up to
 * CLS_BODY_MIN_GROUP_WINDOW pixels. A body that writes a column of several outputs itself
 * (OUT_AT) does enough work per item and holds many registers: the 5x5 median's took 137 us in
 * 32x8 groups, 117-120 in 32x2, 32x4 and 64x2 (the 3x3 median's 51.7-54.4 from 32x2 to 32x8);
 * it has no floor. */
#define CLS_BODY_MIN_GROUP_ITEMS 256
#define CLS_BODY_MIN_GROUP_WINDOW 225

/* Weighted sums do one multiply-add per loaded tap, so the halo that small groups fetch again
 * from L2 shows in their time. On an H100, random 9x9 (4x2 outputs per item) and 13x13 (2x2)
 * masks from 512^2 to 4096^2: Algorithm 2's 32x1 and 32x2 groups, which read 3.4 to 8.3 input
 * pixels per output, lost 4-56% to the best of 11 shapes; within 3 the choice became 32x2 and
 * 32x4, and the geometric-mean loss over 56 cases (those and Gaussian, Laplace, Sobel,
 * bilateral) fell from 6.5% to 4.6% (docs/performance.md). */
#define CLS_WEIGHTED_SUM_INPUT_PER_OUTPUT 3.0

typedef struct cls_config_candidate {
    unsigned group_width, group_height; /* work-items; a group covers group_height * rows rows */
    cls_occupancy occupancy;
    cls_problem_occupancy problem;      /* zeros when compute_units is 0 */
    unsigned busy_warps;                /* warps per compute unit on this problem: the resident
                                         * warps, or fewer when the problem's work-items hold
                                         * fewer per compute unit */
    int border_counted;                 /* 1 when border_items was counted */
    unsigned long border_items;         /* work-items that run border code (cls_border_work_items) */
    double input_per_output;            /* input pixels the group reads per output pixel */
} cls_config_candidate;

typedef struct cls_config_result {
    cls_config_candidate *candidates; /* every valid shape, in Algorithm 2's order (line 3) */
    size_t count;
    size_t chosen;                    /* the index of c_opt */
} cls_config_result;

/* Algorithm 2: shapes whose work-items are a multiple of the SIMD width (width a multiple of it,
 * any height), within the device limits and resident at least once; sorted by occupancy, then
 * fewer work-items, then tiling (without border handling wider first, with it narrower first);
 * with border handling, the one among the highest occupancy that leaves the fewest work-items in
 * border code. Given compute_units, occupancy is the busy warps: a grid too small to fill the
 * device in one wave ties every shape that holds it, and the smallest shape is chosen (the most
 * groups, spread over the most compute units; Guerfi's SM occupancy). No valid shape is
 * CLS_ERR_UNSUPPORTED. With max_input_per_output, the shapes within it come first among those of
 * the highest occupancy. Free the result with cls_config_result_free. */
cls_status cls_configure(const cls_config_request *request, cls_config_result *out);
void cls_config_result_free(cls_config_result *result);

/* Work-items running border code (any region but Body) for the geometry's group shape (in
 * work-items) and rows and columns per item (0 means 1), counted with the region math
 * (cls_region_group_counts): the work-items with output in the region of interest, less those
 * of the body groups. */
unsigned long cls_border_work_items(const cls_launch_geometry *geometry, unsigned rows_per_item,
                                    unsigned cols_per_item);

/* ---------------------------------------------------------------- ISP prediction */

/* Instruction costs of the ISP paper's model, per tap (one mask element of one output pixel)
 * unless said otherwise. With check_both = 2 * check and equal axes this is eqs. 3 and 6 as
 * printed; calibrate per device and border mode. */
typedef struct cls_isp_costs {
    double check[2];      /* n_check: one side of axis x or y, for a region that checks one side */
    double check_both[2]; /* both sides of the axis, any distance: naive and fallback code */
    double kernel;        /* n_kernel: the tap itself (index, load, multiply-add) */
    double region_switch; /* n_switch: selecting the region, once per work-item (Listing 3) */
} cls_isp_costs;

/* Rough defaults for this library's emitter (see isp_model.c), per border mode and mask width. */
void cls_isp_costs_default(cls_border border_x, cls_border border_y, unsigned mask_width, cls_isp_costs *costs);

/* Calibrated costs (cls_model_choose with a calibration stored by `clstencil tune
 * --calibrate-isp`): a check costs per loaded pixel, the same whether a region checks one side of
 * an axis or both, since what it costs is the address that is no longer a constant offset of
 * the row's; kernel 1 per multiply-add or load. check_per_load is split evenly between x and y. */
void cls_isp_costs_per_load(double check_per_load, cls_isp_costs *costs);

typedef struct cls_isp_request {
    const cls_arch_record *record;
    const cls_occupancy_extras *extras; /* NULL: cls_occupancy_extras_default(record) */
    cls_launch_geometry geometry;       /* image, region of interest, mask and group (work-items) */
    unsigned rows_per_item;             /* coarsening; 0 means 1 */
    unsigned cols_per_item;             /* coarsening along x; 0 means 1 */
    unsigned naive_registers, isp_registers; /* per work-item, from the two builds; either 0 (not
                                         * reported): the occupancies ignore registers */
    unsigned local_bytes;               /* per group, both builds */
    cls_isp_costs costs;
    /* The work of one work-item as this library's kernels do it (0 and 0: eqs. 3 and 6 as
     * printed, kernel and checks per tap): kernel_per_item units of kernel work and
     * loads_per_item loaded pixels, each of which pays the region's checks. */
    double kernel_per_item;
    unsigned loads_per_item;
    /* Waves (0: eqs. 4-9 over the whole device): groups are dealt to compute_units in launch
     * order, and a compute unit takes the sum of its groups' instructions, but no less than
     * latency_warps times its slowest warp (a unit with few warps cannot hide their latency, so
     * the slowest border group sets its time). R_reduced is then the ratio on the busiest unit. */
    unsigned compute_units;
    double latency_warps;
} cls_isp_request;

typedef struct cls_isp_prediction {
    unsigned long blocks[CLS_REGION_COUNT]; /* n_block(p), eqs. 7-8 (cls_region_group_counts) */
    double n_naive;                         /* eq. 3 */
    double n_isp;                           /* eqs. 4-6 */
    double busiest_naive, busiest_isp;      /* on the busiest compute unit (0 without waves) */
    double reduced;                         /* R_reduced, eq. 9 (on the busiest unit with waves) */
    double occupancy_naive, occupancy_isp;  /* O_naive, O_ISP from cls_occupancy_compute */
    double gain;                            /* G, eq. 10 (INFINITY when only ISP fits) */
    cls_partition choice;                   /* CLS_PARTITION_ISP_BLOCK when G > 1, else NAIVE */
} cls_isp_prediction;

/* Eqs. 3-10. Neither build fitting on a compute unit is CLS_ERR_UNSUPPORTED. */
cls_status cls_isp_predict(const cls_isp_request *request, cls_isp_prediction *out);

/* The check cost per load (cls_isp_costs_per_load) with which the model predicts gain for
 * request, found by bisection in [0, CLS_ISP_CHECK_MAX]; 0 when even that predicts more, the
 * maximum when even it predicts less. */
#define CLS_ISP_CHECK_MAX 64.0
cls_status cls_isp_solve_check_cost(const cls_isp_request *request, double gain, double *check_per_load);

#endif
