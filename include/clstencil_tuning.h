/* clstencil_tuning.h — the tuning and research interface of clstencil: the device database
 * (records of compute-unit resources and how a device is matched to one), the tuning results that
 * `auto` uses, the analytic models' choice and the ISP calibration. `clstencil tune`, `bench` and
 * `devices` use it; a host that filters images needs only clstencil.h. Same ABI rules as that
 * header (docs/abi.md). */
#ifndef CLSTENCIL_TUNING_H
#define CLSTENCIL_TUNING_H

#include <clstencil.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------- device database */

typedef enum cls_match_level {
    CLS_MATCH_DEVICE = 0, /* a record for this exact device name */
    CLS_MATCH_ARCH,       /* a record for the architecture (compute capability, gfx target) */
    CLS_MATCH_VENDOR_TYPE,/* a record for the vendor and device type */
    CLS_MATCH_GENERIC     /* the generic fallback record */
} cls_match_level;

/* One database record: the resources of one compute unit of an architecture. */
typedef struct cls_arch_record {
    char id[64];           /* the record's section name, e.g. "nvidia-sm90" */
    char origin[256];      /* "built-in" or the overlay file path */
    char source[256];      /* where the numbers come from (vendor documentation, ...) */
    cls_vendor vendor;     /* CLS_VENDOR_UNKNOWN on the generic record */
    cls_device_type type;  /* CLS_DEVICE_OTHER on the generic record */
    char arch[32];         /* architecture key; "" for vendor-type and generic records */
    char device[128];      /* exact device name for device-level records; "" otherwise */
    unsigned simd_width;
    unsigned max_threads_per_cu;
    unsigned max_groups_per_cu;
    unsigned max_warps_per_cu;
    unsigned registers_per_cu;
    unsigned register_alloc_unit;     /* registers are allocated in multiples of this ... */
    int register_alloc_per_warp;      /* ... per warp (1) or per work-group (0) */
    unsigned max_registers_per_thread;
    unsigned local_mem_per_cu;        /* bytes */
    unsigned local_mem_alloc_unit;    /* bytes */
    unsigned default_wg_x, default_wg_y; /* policy: work-group shape when nothing better is known */
    unsigned default_rows;  /* policy: output rows per work-item of a built-in weighted sum whose
                             * spec leaves rows_per_item 0 (1, 2, 4 or 8; 0 in a record means 1) */
    int use_models;         /* 1: where no tuning result applies and the spec gives its expected
                             * size, `auto` takes the analytic models' choice (cls_model_choose)
                             * rather than the policy; key use_models, by default on for GPUs */
    /* policy of the generated code (0: the library's defaults, measured on an H100): multiply-adds
     * a work-item may unroll in every region, and within which it gets as many output rows as
     * fit; the registers a compute-bound block is built to (compilers that take a cap); and
     * the rows and columns a block policy streams instead of blocks cut to stream_below_rows
     * rows or fewer; the computed taps below which a streaming policy (default_rows 16 or more)
     * gives one output per work-item instead (0: it streams every mask it can); 1 where the
     * border groups of a mirror101 kernel fold every index fully (a CPU runtime's vectorizer
     * gives up on the once-folding branch), 0 to fold once where that suffices (GPUs) */
    unsigned unroll_limit, block_budget, register_cap;
    unsigned stream_rows, stream_cols, stream_below_rows;
    unsigned stream_min_taps;
    unsigned border_groups_fold_fully;
    unsigned separate_min_taps; /* a rank-1 mask of at least this many taps whose spec leaves
                                 * `separable` to auto runs as two passes (0: never) */
    unsigned fft_min_taps;      /* a weighted sum of at least this many taps whose spec leaves
                                 * `method` to auto, and that does not run separably, runs by FFT
                                 * (0: never) */
    unsigned fft_max_tile;      /* the largest side of the FFT's tiles (0: 1024) */
    unsigned low_rank_min_taps; /* a mask of rank 2 to CLS_LOW_RANK_MAX and at least this many taps
                                 * whose spec leaves `separable` to auto runs as low-rank pairs
                                 * where that saves taps (0: never) */
    /* what the build goal CLS_BUILD_AUTO weighs (0: its defaults for the device type): a
     * specialized kernel's build (with a CPU runtime's first-launch compile) in milliseconds, fixed
     * and per tap in microseconds; the quick and the specialized kernel's run per output pixel and
     * tap in femtoseconds */
    unsigned build_ms, build_tap_us, quick_tap_fs, specialized_tap_fs;
    unsigned rank_network_taps; /* a volume's rank over at most this many taps runs as a network
                                 * of exchanges fixed at generation (no branch); larger ones, and
                                 * every one where 0, select by Wirth's algorithm */
    unsigned single_pass_min_taps; /* a rank-1 mask of at least this many taps whose spec leaves
                                    * `separable` to auto runs as one kernel of a row pass into
                                    * local memory and a column pass from it (0: never) */
    unsigned single_pass_rows, single_pass_cols; /* that kernel's outputs per work-item where the
                                    * spec leaves them to auto (0: default_rows x 1); 16 rows or
                                    * more stream its row sums through registers */
    unsigned single_pass_ahead;    /* input rows such a streaming kernel loads together (0: one) */
    unsigned volume_slices;        /* output slices a work-item walks down a volume's mask
                                    * (0: the library's 32) */
    unsigned volume_columns;       /* output columns a work-item of that walk computes, 4 or 8 from
                                    * the slice's tile in local memory (0 or 1: one column, no tile) */
    unsigned body_lanes;           /* adjacent outputs a work-item computes as one vector for an
                                    * operator body written in value_t, 2, 4 or 8 (0 or 1: one) */
    unsigned row_body_lanes;       /* the same for such a body that writes a column of outputs at
                                    * any rows (OUT_AT: the 3x3 median), where body_lanes is 0 or 1 */
    unsigned volume_deep_slices;   /* output slices a work-item walks from the slice's tile for a
                                    * mask more than 3 slices deep (0: volume_slices) */
    unsigned single_pass_stages_rows; /* 1: that streaming single pass stages its group's input rows
                                    * in local memory, 4 columns a work-item in one-row groups */
    unsigned fft_tile_max_mask;    /* a weighted sum by FFT whose mask is at most this wide and tall
                                    * runs as one kernel that transforms its 64x64 tiles in local
                                    * memory (0: VkFFT's transforms through device memory) */
    unsigned single_pass_tall_mask; /* the staged single pass over a mask at least this tall walks
                                    * strips of twice single_pass_rows, keeping a group a compute
                                    * unit busy rather than two (0: never) */
    unsigned volume_fft_min_taps;  /* a volume's weighted sum of at least this many taps whose spec
                                    * leaves `method` to auto, and that does not separate, runs by FFT
                                    * (0: never) */
    unsigned inline_ptx;           /* 1: the device's OpenCL compiler takes inline PTX (asm), and an
                                    * operator body's FAST_EXP2 is one ex2.approx.ftz (0: exp2) */
    unsigned rank_minmax;          /* 1: a volume's rank network orders two values by fmin and fmax
                                    * (0: a comparison and two selects) */
    unsigned rank_columns;         /* 2: a work-item of a box's rank by sorted slices computes two
                                    * neighbouring columns, which share their middle columns' sorts
                                    * (0 or 1: one) */
    unsigned rank_register_cap;    /* registers per work-item such a pair of columns is built to where
                                    * the compiler takes more (0: the compiler's count) */
    unsigned volume_y_first;       /* 1: a volume's separable single pass at least 9 and 2 COLUMNS + 1
                                    * tall runs along y first, over its tile's columns in columns of
                                    * COLUMNS rows, then along x over the group's rows (0: x first,
                                    * over the tile's rows, halo included) */
    unsigned volume_pass_slices;   /* output slices a work-item walks in a separable mask's single
                                    * pass at least 9 deep and 9 tall (0: volume_deep_slices) */
    unsigned wide_block_max_taps;  /* a baked weighted sum of at most this many computed taps that
                                    * coarsens into a block takes 4 columns and half default_rows,
                                    * its rows stored as float4s (0: 2 columns, default_rows) */
    unsigned volume_block_rows;    /* output rows a work-item of a volume's walk from the slice's tile
                                    * sums for a weighted sum not separated whose mask is at most 5
                                    * on every side, each tile row read once for all (0 or 1: one) */
    unsigned volume_lane_rows;     /* a volume's separable sum at most 9 wide, 3 tall and 3 deep runs its single
                                    * pass on the global input path, each work-item summing this many
                                    * rows of 4 columns, a warp's lanes handing each other the halo's
                                    * columns, instead of from the slice's tile (0: the tile) */
} cls_arch_record;

typedef struct cls_device_db cls_device_db;

/* Loads the built-in records and the user overlay. overlay_path: NULL means the
 * CLSTENCIL_DEVICE_DB environment variable, else $XDG_CONFIG_HOME/clstencil/devices.ini,
 * else ~/.config/clstencil/devices.ini (a missing default file is not an error; a missing
 * named file is); "" means the built-in records only. A malformed overlay is CLS_ERR_PARSE
 * naming file and line; none of it is used. */
cls_status cls_device_db_load(const char *overlay_path, cls_device_db **out);
/* Frees a database (NULL is fine). */
void cls_device_db_release(cls_device_db *db);
/* The records, built-in ones first, then the overlay's new ones. */
size_t cls_device_db_count(const cls_device_db *db);
const cls_arch_record *cls_device_db_get(const cls_device_db *db, size_t index);
/* The best record for a device: exact device, then architecture, then vendor and type, then
 * generic. Within a level the record defined last wins: overlay records beat built-in ones. NULL
 * (the reason in cls_last_error()) when caps is NULL or its struct_size is not one the library
 * takes (a caller's own record starts with CLS_DEVICE_CAPS_INIT). */
const cls_arch_record *cls_device_db_match(const cls_device_db *db, const cls_device_caps *caps,
                                           cls_match_level *level);
/* "device", "architecture", "vendor+type" or "generic". */
const char *cls_match_level_name(cls_match_level level);

/* ---------------------------------------------------------------- tuning results */

/* The best configuration `clstencil tune` measured for an operator: what `auto` then uses for
 * the spec fields left to it (partition, input path, work-group shape, rows and columns). */
typedef struct cls_tuning {
    size_t struct_size;    /* sizeof(cls_tuning), set by the caller: CLS_TUNING_INIT */
    cls_partition partition;
    cls_input_path input_path;
    unsigned group_width, group_height;
    unsigned rows_per_item, cols_per_item;
    double kernel_us;      /* the median kernel time measured */
    unsigned width, height; /* the image measured */
    unsigned depth;        /* a volume's slices (0 or 1: an image). A volume's result is filed under
                            * the size class of its voxels (the geometric mean of its three
                            * sides: 512^3 and 1024x1024x128 are class 9), serves that class
                            * only (a volume's spec gives its depth in expected_depth) and chooses
                            * the work-group shape and the slices a work-item walks
                            * (rows_per_item) only; the rest stays the device's policy */
} cls_tuning;
/* The start of a designated initializer of a cls_tuning (what cls_tuning_store reads, and what
 * cls_tuning_lookup and cls_model_choose fill, as far as the caller's struct_size reaches):
 * cls_tuning tuning = {CLS_TUNING_INIT, .partition = CLS_PARTITION_NAIVE}; */
#define CLS_TUNING_INIT .struct_size = sizeof(cls_tuning)

/* An image's size class: log2 of the geometric mean of its sides, rounded (512x512: 9,
 * 4096x4096: 12); 0 for an empty size. */
unsigned cls_size_class(size_t width, size_t height);
/* The user's tuning file: the one cls_set_config_paths named, else CLSTENCIL_TUNING_DB, else
 * $XDG_CONFIG_HOME/clstencil/tuning.ini, else ~/.config/clstencil/tuning.ini (a per-thread static
 * buffer; "" when none can be named or the host chose none). */
const char *cls_tuning_path(void);
/* Stores a result for spec's operator (the spec without the fields above) on the context's
 * device architecture and the size class of tuning->width x height in the user's tuning file,
 * replacing the entry of the same architecture, operator and class; the file is rewritten
 * atomically. description (may be NULL) says what was tuned, for people reading the file. */
cls_status cls_tuning_store(const cls_context *context, const cls_spec *spec, const cls_tuning *tuning,
                            const char *description);
/* What `auto` uses for spec at width x height (0 x 0: the largest class tuned; a volume's depth
 * is the spec's expected_depth): the user's file over the results shipped with the library, the
 * exact size class, else the nearest (a volume: the exact class only). *found is 0
 * (and *tuning untouched) when the operator was never tuned on this architecture. tuning's
 * struct_size is the caller's (CLS_TUNING_INIT), kept; the fields that fit it are filled. */
cls_status cls_tuning_lookup(const cls_context *context, const cls_spec *spec, unsigned width, unsigned height,
                             cls_tuning *tuning, int *found);

/* What the analytic models choose for spec at width x height on the context's device (fields
 * the spec sets are kept): the work-group shape by Hipacc's Algorithm 2 from the occupancy of
 * the build's registers and local memory (weighted sums: among the shapes of the highest
 * occupancy, those that read at most 3 input pixels per output, where there are any), then
 * naive or ISP by the ISP paper's gain (eqs. 3-10) from the naive and isp-block builds'
 * registers, ISP as isp-warp on the global path (a streaming kernel or a weighted sum of 81 or
 * more multiply-adds per output, which occupancy does not limit, keeps the policy's shape and
 * counts both builds at the ISP build's occupancy), with the policy's rows, columns and input
 * path. Builds up to three kernels (cached; none for a register-capped compute-bound weighted sum on
 * NVIDIA, whose builds count at the cap). kernel_us and the size fields are 0 and width x
 * height. `auto` uses it where nothing is tuned (cls_arch_record.use_models). */
cls_status cls_model_choose(cls_context *context, const cls_spec *spec, unsigned width, unsigned height,
                            cls_tuning *choice);
/* Calibrates the ISP model for the reference's border mode on the context's device from a
 * measurement (`clstencil bench --calibrate-isp`): naive_us and isp_us are the reference's kernel
 * times, naive and isp-block, at width x height and the configuration the reference names (its
 * work-group shape, rows, columns and input path). Solves for the check cost per loaded pixel
 * with which the model predicts that gain, stores it in the user's tuning file (replacing the
 * border mode's previous calibration) and returns it; cls_model_choose uses it from then on.
 * label names the reference in the file's description (may be NULL). The reference is a built-in
 * weighted sum; the calibration applies to weighted sums only (operator bodies get eqs. 3-10
 * as printed). */
cls_status cls_isp_calibrate(cls_context *context, const cls_spec *reference, unsigned width, unsigned height,
                             double naive_us, double isp_us, const char *label, double *check_per_load);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
