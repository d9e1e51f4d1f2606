/* clstencil.h — the public header of clstencil, a run-time OpenCL kernel generator for image
 * local operators (stencils): devices, specs, contexts, filters, operators, pipelines and the
 * binary cache, what a host that filters images needs. The device database, tuning results and
 * the analytic models are in clstencil_tuning.h. Every fallible call returns a cls_status; the
 * detailed message of the calling thread's last failure (including OpenCL build logs) is
 * cls_last_error(). The library never prints, never exits and never aborts on bad input. */
#ifndef CLSTENCIL_H
#define CLSTENCIL_H

/* The OpenCL API the library is written against; a host that targets another version defines
 * CL_TARGET_OPENCL_VERSION itself before this header (or on its command line). */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the library's exported interface. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define CLS_VERSION_MAJOR 0
#define CLS_VERSION_MINOR 1
#define CLS_VERSION_PATCH 0
#define CLS_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- status and errors */

typedef enum cls_status {
    CLS_OK = 0,
    CLS_ERR_INVALID_ARGUMENT, /* a parameter or spec field is out of range */
    CLS_ERR_NO_PLATFORM,      /* no OpenCL platform is installed */
    CLS_ERR_NO_DEVICE,        /* no device matches the selection */
    CLS_ERR_OPENCL,           /* an OpenCL call failed */
    CLS_ERR_BUILD,            /* clBuildProgram failed; the build log is in cls_last_error() */
    CLS_ERR_OUT_OF_MEMORY,
    CLS_ERR_IO,               /* a file could not be read or written */
    CLS_ERR_PARSE,            /* a data file (device database overlay) is malformed */
    CLS_ERR_UNSUPPORTED       /* the device cannot run what was asked */
} cls_status;

/* ---------------------------------------------------------------- structs that carry their size */

/* Every struct the caller allocates and passes in (cls_spec, cls_image_desc, cls_build_info,
 * cls_cache_status, cls_device_caps; cls_tuning in clstencil_tuning.h) starts with
 * `size_t struct_size`: the struct's size where the caller was compiled, so that a later library
 * with longer structs reads and writes only the caller's fields (docs/abi.md). cls_spec_init sets
 * it; designated initializers start with the struct's CLS_..._INIT macro:
 *     const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
 * A struct_size of 0 (a struct not initialized so) is CLS_ERR_INVALID_ARGUMENT. */

/* The detailed message of the calling thread's last failed call ("" if none). */
const char *cls_last_error(void);
/* A short fixed name for a status ("CLS_ERR_BUILD"). */
const char *cls_status_name(cls_status status);
/* The library version, e.g. "0.1.0". */
const char *cls_version(void);
/* Frees memory that the library returned to the caller (strings such as generated source). */
void cls_free(void *memory);

/* ---------------------------------------------------------------- devices */

typedef enum cls_vendor {
    CLS_VENDOR_UNKNOWN = 0,
    CLS_VENDOR_NVIDIA,
    CLS_VENDOR_AMD,
    CLS_VENDOR_INTEL,
    CLS_VENDOR_APPLE,
    CLS_VENDOR_ARM,
    CLS_VENDOR_QUALCOMM,
    CLS_VENDOR_POCL, /* the Portable Computing Language runtime (CPU) */
    CLS_VENDOR_OCLGRIND
} cls_vendor;

typedef enum cls_device_type {
    CLS_DEVICE_OTHER = 0,
    CLS_DEVICE_GPU,
    CLS_DEVICE_ACCELERATOR,
    CLS_DEVICE_CPU
} cls_device_type;

/* The capability record of one OpenCL device, as discovered (all sizes in bytes). Records the
 * library hands out have struct_size = sizeof(cls_device_caps); one a caller builds (for
 * cls_device_db_match) starts with CLS_DEVICE_CAPS_INIT. */
typedef struct cls_device_caps {
    size_t struct_size; /* sizeof(cls_device_caps) where the caller was compiled (docs/abi.md) */
    unsigned platform_index, device_index; /* position in clGetPlatformIDs / clGetDeviceIDs */
    char platform_name[128];
    char platform_version[128];
    char name[128];
    char vendor_name[128];   /* CL_DEVICE_VENDOR as reported */
    cls_vendor vendor;       /* normalized */
    cls_device_type type;
    cl_uint vendor_id;
    char driver_version[64];
    char device_version[128];     /* CL_DEVICE_VERSION */
    char opencl_c_version[64];    /* CL_DEVICE_OPENCL_C_VERSION */
    cl_uint address_bits;
    cl_uint compute_units;
    cl_uint max_clock_mhz;
    cl_ulong global_mem_size;
    cl_ulong local_mem_size;
    cl_ulong max_constant_buffer_size;
    size_t max_parameter_size;    /* CL_DEVICE_MAX_PARAMETER_SIZE: bytes of all kernel arguments */
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t preferred_work_group_multiple; /* the vendor's width, PoCL's device query, else a
                                           * trivial kernel's; 0 if unknown */
    cl_uint simd_width;                   /* warp/wavefront/sub-group width; 0 if unknown */
    int image_support;
    size_t image2d_max_width, image2d_max_height;
    /* Vendor extensions: zero when the extension is absent. */
    int has_nv_attributes;           /* cl_nv_device_attribute_query */
    cl_uint nv_compute_capability_major, nv_compute_capability_minor;
    cl_uint nv_registers_per_block;
    cl_uint nv_warp_size;
    int has_amd_attributes;          /* cl_amd_device_attribute_query */
    cl_uint amd_wavefront_width;
    cl_uint amd_simds_per_cu;
    char amd_board_name[128];
    char amd_gfx_target[32];         /* e.g. "gfx90a", from the device name */
    int has_intel_ip_version;        /* cl_intel_device_attribute_query */
    cl_uint intel_ip_version;
    char arch[32]; /* architecture key used by the database: "sm_90", "gfx90a", "" if none */
} cls_device_caps;
/* The start of a designated initializer of a caller's cls_device_caps:
 * cls_device_caps caps = {CLS_DEVICE_CAPS_INIT, .vendor = CLS_VENDOR_NVIDIA}; */
#define CLS_DEVICE_CAPS_INIT .struct_size = sizeof(cls_device_caps)

typedef struct cls_device_list cls_device_list;

/* Enumerates every device of every platform. CLS_ERR_NO_PLATFORM when none is installed,
 * CLS_ERR_NO_DEVICE when the platforms have no device. */
cls_status cls_devices_query(cls_device_list **out);
/* Frees a device list (NULL is fine). */
void cls_device_list_release(cls_device_list *list);
/* The number of devices of every platform. */
size_t cls_device_list_count(const cls_device_list *list);
/* The capability record of device `index` (NULL when out of range); owned by the list. */
const cls_device_caps *cls_device_list_get(const cls_device_list *list, size_t index);
/* The OpenCL id of device `index` (NULL when out of range). */
cl_device_id cls_device_list_id(const cls_device_list *list, size_t index);

/* Chooses a device. selector: NULL means the CLSTENCIL_DEVICE environment variable, or, when
 * that is unset or empty, the default (a GPU if any, else an accelerator, else a CPU).
 * Forms: "P:D" (platform:device index), "gpu" | "cpu" | "accelerator", or a case-insensitive
 * substring of the device, platform or vendor name. No match is CLS_ERR_NO_DEVICE with a
 * message listing every device. */
cls_status cls_device_select(const cls_device_list *list, const char *selector, size_t *index);
/* Chooses several devices, for a host that spreads its work over them (a context each).
 * selectors: a comma-separated list of cls_device_select's forms ("1:0,1:1"; a device named twice
 * is chosen twice: two contexts on it overlap their hosts' work), "gpus" (every GPU of every
 * platform), or one selector; NULL means CLSTENCIL_DEVICE as above. Writes the devices' indices, in
 * the order the selectors name them ("gpus": the list's order), to indices[0 .. *count): more than capacity, an empty item or one that matches
 * nothing is an error (CLS_ERR_INVALID_ARGUMENT or CLS_ERR_NO_DEVICE, with a message). */
cls_status cls_device_select_list(const cls_device_list *list, const char *selectors, size_t *indices,
                                  size_t capacity, size_t *count);

/* A stable 64-bit hash of platform name and version, device name, vendor id, driver version,
 * OpenCL version, address bits and the library version, as 16 hex digits plus NUL ("" when caps
 * is refused: NULL or a struct_size the library does not take; the reason in cls_last_error()). */
void cls_device_fingerprint(const cls_device_caps *caps, char out[17]);

/* Printable names: "NVIDIA", "PoCL", ...; "gpu", "cpu", "accelerator", "other". */
const char *cls_vendor_name(cls_vendor vendor);
const char *cls_device_type_name(cls_device_type type);

/* ---------------------------------------------------------------- local-operator spec */

typedef enum cls_border {
    CLS_BORDER_UNDEFINED = 0, /* no check: the caller guarantees in-range reads */
    CLS_BORDER_CLAMP,         /* aaaa|abcd|dddd */
    CLS_BORDER_MIRROR,        /* dcba|abcd|dcba (OpenCV BORDER_REFLECT) */
    CLS_BORDER_MIRROR101,     /* dcb|abcd|cba   (OpenCV BORDER_REFLECT_101) */
    CLS_BORDER_REPEAT,        /* abcd|abcd|abcd */
    CLS_BORDER_CONSTANT,      /* kkkk|abcd|kkkk */
    CLS_BORDER_SAME = -1      /* cls_spec.border_y and border_z only: `border`'s mode (their default) */
} cls_border;

typedef enum cls_partition {
    CLS_PARTITION_AUTO = 0,
    CLS_PARTITION_NAIVE,     /* every tap checks every side */
    CLS_PARTITION_ISP_BLOCK, /* nine regions chosen per work-group */
    CLS_PARTITION_ISP_WARP   /* regions refined per warp within border work-groups */
} cls_partition;

/* Pixel types of images in memory (host order). Integer outputs are rounded to nearest (ties to
 * even) and saturated to the type's range, NaN to 0; I16 is signed 16-bit (-32768..32767). F16 is
 * IEEE half precision: read exactly into f32, written rounded to nearest (ties to even), beyond
 * +-65504 as infinity, NaN as NaN (vload_half and vstore_half_rte: no device extension needed).
 * F64 (double) on either side makes the kernel compute in double (the coefficients stay float):
 * one built-in weighted sum, direct, read from global memory, one output per work-item, on a
 * device with double precision (CL_DEVICE_DOUBLE_FP_CONFIG; cl_khr_fp64). */
typedef enum cls_pixel_type {
    CLS_PIXEL_F32 = 0,
    CLS_PIXEL_U8,
    CLS_PIXEL_U16,
    CLS_PIXEL_I16,
    CLS_PIXEL_F16,
    CLS_PIXEL_F64
} cls_pixel_type;

/* Where the taps read the input from. */
typedef enum cls_input_path {
    CLS_INPUT_AUTO = 0, /* global until a model or tuning record says otherwise */
    CLS_INPUT_GLOBAL,   /* loads from the input buffer (through the caches) */
    CLS_INPUT_LOCAL,    /* the group's tile and halo staged in local memory, border handling
                         * applied while staging; the window sum reads the tile unchecked */
    CLS_INPUT_IMAGE     /* the input read as an image2d_t through a sampler: the hardware address
                         * mode where it matches the border mode exactly (clamp; constant 0),
                         * software border code otherwise; needs image support */
} cls_input_path;

/* Separable masks (rank 1: mask = column x row). */
typedef enum cls_separable {
    CLS_SEPARABLE_AUTO = 0,    /* not separated until a model or tuning record says otherwise */
    CLS_SEPARABLE_NONE,        /* the full window */
    CLS_SEPARABLE_SINGLE_PASS, /* one kernel: row sums of the tile into local memory, then columns
                                * (streaming, 16 rows a work-item or more: the row sums fed to
                                * the column sums in registers; with CLS_INPUT_LOCAL, 4 columns a
                                * work-item in one-row groups whose input rows pass through local
                                * memory a few at a time) */
    CLS_SEPARABLE_TWO_PASS,    /* two kernels: a row pass into a temporary f32 image, a column pass */
    CLS_SEPARABLE_LOW_RANK     /* a mask of rank 2 to CLS_LOW_RANK_MAX (by its singular value
                                * decomposition, within CLS_SEPARABLE_TOLERANCE) as that many
                                * two-pass pairs into f32 images, then their sum */
} cls_separable;
#define CLS_LOW_RANK_MAX 4

/* How a weighted sum is computed. DIRECT: the window's multiply-adds per output (one kernel, or two
 * passes where `separable` says so). FFT: the image (or volume) in tiles padded by the border
 * mode's rule, a real 2-D (3-D) FFT of each (VkFFT), multiplied by the mask's spectrum, an inverse
 * FFT, the valid part written out: the same border semantics as DIRECT, the cost of a few FFTs of
 * the image whatever the mask's size, f32 results within CLS_FFT_TOLERANCE of DIRECT's. AUTO: FFT
 * for masks of at least the device record's fft_min_taps taps (a volume's: volume_fft_min_taps)
 * that do not run separably, else DIRECT. FFT needs the built-in weighted sum of one mask (no
 * body, mask count, epilogue, or a volume's minimum, maximum or rank). */
typedef enum cls_method {
    CLS_METHOD_AUTO = 0,
    CLS_METHOD_DIRECT,
    CLS_METHOD_FFT,
} cls_method;

/* What a volume's kernel makes of its window (cls_spec.reduction): the weighted sum, or the
 * minimum or maximum over the footprint, the taps whose coefficient is not 0 (min3d:, max3d:), or
 * the value of rank cls_spec.rank among the footprint's values (0: the smallest; median3d:,
 * percentile3d:), a footprint of at most CLS_RANK_MAX_TAPS taps. */
typedef enum cls_reduction {
    CLS_REDUCTION_SUM = 0,
    CLS_REDUCTION_MIN,
    CLS_REDUCTION_MAX,
    CLS_REDUCTION_RANK,
} cls_reduction;
#define CLS_RANK_MAX_TAPS 1024

/* FFT results differ from the direct sum by at most CLS_FFT_TOLERANCE * sum |m| * max |input|
 * (f32 outputs; integer outputs, rounded from them, by at most one more unit). */
#define CLS_FFT_TOLERANCE 1e-5f

#define CLS_MAX_MASK 63
/* The largest mask depth of a volume's weighted sum. */
#define CLS_MAX_MASK_DEPTH 31
#define CLS_MAX_MASKS 4 /* masks (outputs) of one multi-output kernel */
/* A mask is separable when |m(i,j) - column(j)*row(i)| <= CLS_SEPARABLE_TOLERANCE * max |m| for
 * every tap, with row and column taken through the largest coefficient. */
#define CLS_SEPARABLE_TOLERANCE 1e-6f

/* What a filter's creation optimizes for. FASTEST_KERNEL (the default) builds the kernel
 * specialized for the spec and the device (coefficients as the spec stores them, several outputs
 * per work-item, the body region apart from the others): on an H200 15-22 s a process for random
 * 9x9 and 13x13 masks (separate regions: 1-1.5 minutes). FIRST_RESULT takes a specialized kernel only when it is already
 * built (this process or the disk cache: no build from source): the spec's own, then on GPUs with
 * the coefficients as a kernel argument (CLS_COEFFICIENTS_ARGUMENT: built for any mask of the
 * size, shape and border mode).
 * Otherwise it builds a quick kernel that computes the same sums in the same order (the mask read
 * from a buffer, one output per work-item, every tap checking the borders), which builds in about
 * a second and runs slower: the lowest build plus run time for a filter that runs once or a few
 * times. TIERED starts as FIRST_RESULT and, when it took the quick kernel, builds on a thread of
 * its own the specialized kernel (on GPUs with the coefficients as an argument; on CPU devices
 * once the quick kernel's first launch has completed, or at cls_filter_wait), which serves
 * every later launch once built (cls_filter_wait waits for it). AUTO decides by expected time
 * for the spec's expected size: a specialized kernel already built serves; else it is built now
 * when its build plus run is expected to take less than the quick kernel's run (the device
 * record's build and run costs), else AUTO is TIERED (cls_filter_build_decision says which and
 * why). A filter's results are the same bits whichever of its kernels runs, for finite inputs:
 * on GPUs the quick kernel, the argument form and a cached own kernel sum the mask alike, as row
 * and column sums in the separable single pass where the policy separates a mask of rank 1, else
 * over the whole window; FASTEST_KERNEL (and AUTO's kernel built now) takes the literals and the
 * tuned or modelled kernel, which may sum otherwise (a tuned 2-D mask where the others separate, a
 * box's row of 9 or more taps summed once for its outputs), so its last bits may differ. A spec
 * that folds equal taps builds as FASTEST_KERNEL. */
typedef enum cls_build_goal {
    CLS_BUILD_FASTEST_KERNEL = 0,
    CLS_BUILD_FIRST_RESULT = 1,
    CLS_BUILD_TIERED = 2,
    CLS_BUILD_AUTO = 3,
} cls_build_goal;

/* Values of cls_spec.bake_coefficients. BUFFER: a __constant buffer read in loops (one build
 * serves every mask of its size; slow for large masks on GPUs). LITERALS: the coefficients are
 * literals of the unrolled source and zero taps are skipped (one build per mask; the only storage
 * that folds equal taps). ARGUMENT: the unrolled code of LITERALS reading the coefficients from a
 * by-value kernel argument, so that one build serves every mask of its size, shape and border
 * mode; every tap is computed. The argument must fit the device's CL_DEVICE_MAX_PARAMETER_SIZE
 * (4352 bytes on NVIDIA, often 1024 elsewhere) with the kernel's other arguments, else
 * CLS_ERR_UNSUPPORTED. It needs an unseparated mask or the separable single pass (whose argument
 * holds the row, then the column). */
#define CLS_COEFFICIENTS_BUFFER 0
#define CLS_COEFFICIENTS_LITERALS 1
#define CLS_COEFFICIENTS_ARGUMENT 2

/* How the regions of an ISP kernel (isp-block, isp-warp) hold the unrolled sums of a built-in
 * weighted sum (literals or argument, not folded, global input, not streaming). SEPARATE: every
 * region its own copy, checking only the sides it touches: the fastest kernels and the longest
 * builds (NVIDIA: 1-1.5 minutes a process for random 9x9 and 13x13 masks). SHARED: one copy of the
 * multiply-adds, the regions differing only in how a window row loads (unchecked, folded once on
 * the side crossed, or folded fully): builds in seconds, kernels 8-22% slower on an H100.
 * BODY_APART (what AUTO gives): four copies, the body region's, checking nothing, the left and
 * right regions' as in SEPARATE, and one that the top and bottom rows, the corners and the
 * fallback share, checking every side (up to CLS_UNROLL_LIMIT multiply-adds a work-item, past
 * which kernels have separate regions): builds in 15-22 s a process on an H200, kernels as fast
 * as SEPARATE's (0-3% faster) in every border mode. */
typedef enum cls_region_code {
    CLS_REGION_CODE_AUTO = 0,
    CLS_REGION_CODE_SEPARATE,
    CLS_REGION_CODE_SHARED,
    CLS_REGION_CODE_BODY_APART,
} cls_region_code;

typedef struct cls_spec {
    size_t struct_size;               /* sizeof(cls_spec): set by cls_spec_init */
    unsigned mask_width, mask_height; /* odd, 1..CLS_MAX_MASK */
    const float *coefficients;        /* mask_width*mask_height, row-major; copied at create */
    int bake_coefficients;            /* where the kernel finds the coefficients: CLS_COEFFICIENTS_* */
    cls_border border;
    float border_value;               /* for CLS_BORDER_CONSTANT */
    cls_partition partition;
    unsigned group_width, group_height; /* 0 x 0 = auto */
    unsigned rows_per_item;           /* coarsening: output rows per work-item, 1 to 8 (0 = 1;
                                       * an operator body runs once per output), or 16, 32, 64
                                       * or 128 to stream a built-in weighted sum: the work-item
                                       * walks down its strip with a window of mask-height
                                       * partial sums in registers (global input, unseparated,
                                       * no tap folding); more than 1 needs a border mode other
                                       * than undefined */
    unsigned cols_per_item;           /* coarsening along x: output columns per work-item, 1, 2,
                                       * 4 or 8 (0 = 1), with the same needs as several rows */
    int fold_equal_taps;              /* baked masks: taps with equal coefficients share one
                                       * multiplication, c * (a + b + ...) (symmetric masks) */
    cls_input_path input_path;
    cls_separable separable;          /* SINGLE_PASS or TWO_PASS need a rank-1 mask (or the two
                                       * vectors below) and one mask */
    const float *row_coefficients;    /* optional: mask_width values; with column_coefficients it */
    const float *column_coefficients; /* gives the mask as their outer product (coefficients may
                                       * then be NULL); copied at create */
    unsigned mask_count;              /* masks applied to the same input in one pass (0 = 1, at
                                       * most CLS_MAX_MASKS); coefficients holds them one after
                                       * another; each writes its own output unless `epilogue` */
    const char *epilogue;             /* optional OpenCL C expression of r0 .. r3 (the masks' sums)
                                       * giving the one output, e.g. "hypot(r0, r1)"; copied. It
                                       * may call magnitude(a, b): hypot's value by plain
                                       * arithmetic (CPU runtimes run hypot one lane at a time) */
    cls_pixel_type input_type, output_type;
    /* A user-written operator: OpenCL C statements run for every output pixel, or NULL for the
     * built-in weighted sum. They read neighbours with IN(dx, dy) (a float, border handling
     * included), the mask with MASK(dx, dy), may iterate the window with FOR_WINDOW(dx, dy)
     * { ... }, and assign OUT (a float, converted to the output type). Errors in the build log
     * carry the body's own line numbers (file name "operator"). The body runs in a function of
     * its own: it may read x, y (the output pixel), width and height, and any name it declares
     * is its own; names starting with cls_ are reserved. IN's offsets are clamped to the window;
     * cls_spec_validate refuses bodies over 64 KiB and those that break the rules of
     * docs/reliability.md (literal offsets outside the window, reserved names, private arrays
     * over 16 KiB, ...).
     * A body split by "#stage WxH" lines (and ended by "#combine input - result" or "result -
     * input") runs in stages, a kernel each, through f32 images (docs/api.md: the compositions).
     * Copied at create. */
    const char *body;
    /* The image size `auto` chooses for: the tuning results' size class (0 x 0: the largest size
     * tuned) and, where none applies on a record that uses the models (GPUs by default), the
     * analytic models' problem size (0 x 0: the record's policy instead). A filter still runs on
     * any size. */
    unsigned expected_width, expected_height;
    cls_build_goal build_goal;
    cls_region_code region_code;
    cls_method method; /* DIRECT or FFT; AUTO: the device record's choice (cls_method above) */
    /* A volume's mask: its depth along z, odd, 1 to CLS_MAX_MASK_DEPTH (0: a 2-D mask; 1: a
     * volume's mask one slice deep, which filters each slice).
     * coefficients then hold mask_depth slices of mask_width x mask_height, x fastest, then y,
     * then z. A volume mask is one built-in weighted sum, or a body of volumes that reads
     * IN(dx, dy, dz) (cls_operator_user_volume), with no epilogue, second mask, single-pass or
     * low-rank separation, FFT, tap folding, local or image input path, or columns per
     * work-item; its kernel walks each x, y column of the output down z, rows_per_item output
     * slices a work-item (1 to 8, or 16 to 512 by doubling; 0: the device's choice). Images of
     * any depth go through it (cls_image_desc). */
    unsigned mask_depth;
    /* A volume's window: its weighted sum, or the minimum or maximum over the footprint (the taps
     * whose coefficient is not 0); MIN and MAX take volumes only (2-D: the min:/max: operators). */
    cls_reduction reduction;
    /* A border mode per axis: `border` is the mode along x (columns), and along y (rows) and z
     * (slices) too unless border_y or border_z names another (CLS_BORDER_SAME, the default, takes
     * `border`'s). One border_value serves every constant axis; undefined cannot be mixed with
     * other modes. A kernel whose axes differ has its border code per axis, no hardware
     * sampler border, and min:/max: by the direct loop, not van Herk; cls_border_axes_name
     * prints them ("mirror,clamp"). */
    cls_border border_y, border_z;
    /* CLS_REDUCTION_RANK: the rank of the value taken, from 0 (the footprint's smallest) to its
     * taps less one; each output selects among its footprint's values in private memory (each
     * work-item's array as large as the footprint), the footprint baked into the kernel. */
    unsigned rank;
    /* A volume's expected slices, with expected_width x expected_height (0: not known). With
     * them `auto` takes the tuning result of the volume's size class and, on GPUs, walks fewer
     * slices a work-item where the record's walk would leave the device short of work-items
     * (docs/device-db.md). Read for volume masks only. */
    unsigned expected_depth;
} cls_spec;

/* Fills a spec with defaults: 3x3, clamp, auto partition and shape, f32 -> f32, runtime mask,
 * one mask, input path, separation and method auto; struct_size = sizeof(cls_spec) where the
 * caller was compiled. Every spec starts here (a copy of one so filled, or of
 * cls_operator_spec's, is fine). cls_spec_init is a macro over cls_spec_init_sized, which fills
 * SIZE bytes (the caller's sizeof): the library's struct may be larger than the caller's. The
 * function cls_spec_init, which programs built against ABI 1's first header call, fills the
 * first layout's bytes only. */
void cls_spec_init_sized(cls_spec *spec, size_t size);
void cls_spec_init(cls_spec *spec);
#define cls_spec_init(spec) cls_spec_init_sized((spec), sizeof *(spec))
/* Parses a border name or alias, case-insensitively ("replicate" -> CLS_BORDER_CLAMP). */
cls_status cls_border_parse(const char *name, cls_border *out);
/* The canonical name of a border mode ("mirror101"; "same" for CLS_BORDER_SAME). */
const char *cls_border_name(cls_border border);
/* Parses "X[,Y[,Z]]", a border mode per axis as cls_border_parse takes them ("reflect,nearest"),
 * into axes[0] (x), axes[1] (y) and axes[2] (z): CLS_BORDER_SAME where the text names none. */
cls_status cls_border_parse_axes(const char *text, cls_border axes[3]);
/* The modes of a spec's axes as text: "mirror" where they agree, else "mirror,clamp" (x, y; for a
 * volume's mask x, y, z); `size` bytes at most. */
void cls_border_axes_name(const cls_spec *spec, char *text, size_t size);
/* "naive", "isp-block", "isp-warp" or "auto", case-insensitively; and back. */
cls_status cls_partition_parse(const char *name, cls_partition *out);
const char *cls_partition_name(cls_partition partition);
/* "auto", "global", "local", "image"; and "auto", "none", "single-pass", "two-pass", "low-rank";
 * and back. */
cls_status cls_input_path_parse(const char *name, cls_input_path *out);
const char *cls_input_path_name(cls_input_path path);
cls_status cls_separable_parse(const char *name, cls_separable *out);
const char *cls_separable_name(cls_separable separable);
/* "auto", "direct", "fft"; and back. */
cls_status cls_method_parse(const char *name, cls_method *out);
const char *cls_method_name(cls_method method);
/* Splits a rank-1 mask into row (width values) and column (height values) so that
 * mask(i, j) = column[j] * row[i] within CLS_SEPARABLE_TOLERANCE; CLS_ERR_INVALID_ARGUMENT
 * (with the largest residual in the message) when it is not separable. */
cls_status cls_mask_separate(const float *mask, unsigned width, unsigned height, float *row, float *column);
/* "f32", "u8", "u16", "i16", "f16" or "f64"; and back; and the bytes of one pixel. */
cls_status cls_pixel_type_parse(const char *name, cls_pixel_type *out);
const char *cls_pixel_type_name(cls_pixel_type type);
size_t cls_pixel_size(cls_pixel_type type);
/* Checks a spec without a device; the message names the offending field. */
cls_status cls_spec_validate(const cls_spec *spec);
/* Whether a count is one that rows_per_item (1 to 8, or 16, 32, 64 or 128: streaming), a
 * volume's rows_per_item (the output slices a work-item walks: those, 256 or 512) and
 * cols_per_item (1, 2, 4 or 8) take; 0, which a spec reads as 1, is not one. */
int cls_rows_per_item_valid(unsigned rows);
int cls_volume_slices_valid(unsigned slices);
int cls_cols_per_item_valid(unsigned cols);

/* Generates the OpenCL C source for a spec without a device. simd_width is used by isp-warp
 * (0 means 32). Knobs left to auto take their plain form, with no device's policy: isp-block, a
 * 32x4 group, one output per work-item, the global input path, not separated, direct. *source
 * is freed with cls_free. */
cls_status cls_generate_source(const cls_spec *spec, unsigned simd_width, char **source);

/* ---------------------------------------------------------------- contexts and filters */

typedef struct cls_context cls_context;

/* Creates an OpenCL context and a profiling-enabled in-order queue on the selected device
 * (selector as for cls_device_select). */
cls_status cls_context_create(const char *selector, cls_context **out);
/* Wraps a caller's OpenCL context, device and queue without taking ownership: clstencil
 * retains them and drops its own references in cls_context_release. Filters enqueue on that
 * queue. The queue must belong to the context and the device. */
cls_status cls_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue,
                            cls_context **out);
/* Releases the context and its cached programs. Filters of the context must be released first.
 * A context may be shared between threads: filters created concurrently share builds. */
void cls_context_release(cls_context *context);
/* The context's device record, OpenCL context and queue (owned by the context). */
const cls_device_caps *cls_context_device(const cls_context *context);
cl_context cls_context_cl(const cls_context *context);
cl_command_queue cls_context_queue(const cls_context *context);
/* Pinned host memory: BYTES bytes the device copies to and from at full speed (an NVIDIA H200
 * moved 64 MiB at 54 GB/s each way from it, against 7-13 GB/s from ordinary memory whose pages
 * were touched before and 1.5-3.5 GB/s from fresh pages; `clstencil bench --transfers`), for
 * images given to cls_filter_run_host, cls_pipeline_run_host or the context's queue. NULL, with the message, when the device gives none; a host then uses ordinary
 * memory. Free it with cls_host_free; what is left is freed with the context. */
void *cls_host_alloc(cls_context *context, size_t bytes);
void cls_host_free(cls_context *context, void *pointer);
/* What the context's creation skipped: a device-database overlay or tuning file that was
 * malformed or unreadable (the message names the file and line), one per line; "" when none. A
 * context is created without them (the built-in records, the results shipped with the library).
 * Owned by the context. */
const char *cls_context_warnings(const cls_context *context);
/* The configuration files contexts created from now on read, instead of the environment's
 * (CLSTENCIL_DEVICE_DB, CLSTENCIL_TUNING_DB) and the XDG folders' defaults: device_db the
 * database overlay, tuning the tuning file (also where cls_tuning_store writes). NULL keeps the
 * default lookup; "" reads no such file. Call it before creating contexts. */
cls_status cls_set_config_paths(const char *device_db, const char *tuning);

/* Geometry of one launch. Row pitches are in bytes (0: tightly packed). The offsets are bytes
 * from the start of the buffer to pixel (0, 0), a whole number of pixels. The region of
 * interest is the part of the output computed (0 x 0: all of it); its border handling is that
 * of the whole image, and the output buffer has the image's geometry (only the region is
 * written). Fields left zero mean: whole image, packed rows, no offsets. */
typedef struct cls_image_desc {
    size_t struct_size; /* sizeof(cls_image_desc): CLS_IMAGE_DESC_INIT */
    size_t width, height;
    size_t input_row_pitch, output_row_pitch;
    size_t input_offset, output_offset;
    size_t roi_x, roi_y, roi_width, roi_height;
    /* A volume: depth slices of width x height (0 or 1: one image), each slice starting its
     * slice pitch in bytes after the one before (0: row pitch x height), and the region of
     * interest's slices [roi_z, roi_z + roi_depth) (roi_depth 0: every slice, roi_z 0). Only a
     * filter of a volume mask (cls_spec.mask_depth) takes depth above 1. */
    size_t depth;
    size_t input_slice_pitch, output_slice_pitch;
    size_t roi_z, roi_depth;
} cls_image_desc;
/* The start of a designated initializer of a cls_image_desc:
 * const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H}; */
#define CLS_IMAGE_DESC_INIT .struct_size = sizeof(cls_image_desc)

typedef struct cls_filter cls_filter;

/* Validates the spec against the device, generates and builds the kernel. */
cls_status cls_filter_create(cls_context *context, const cls_spec *spec, cls_filter **out);
/* Frees a filter (NULL is fine); launches already enqueued are unaffected. A tiered filter's
 * release waits for its background build to end (one a CPU device has not begun is dropped). */
void cls_filter_release(cls_filter *filter);
/* CLS_BUILD_TIERED: waits until the specialized kernel is built; CLS_OK when it serves the
 * filter's launches from now on (at once for other filters), else the build's error (the quick
 * kernel goes on serving). Any thread may call it. */
cls_status cls_filter_wait(cls_filter *filter);
/* What the build goal chose for the filter and why, e.g. CLS_BUILD_AUTO's expected times (owned
 * by the filter); NULL where the goal left no choice (FASTEST_KERNEL, FFT, stages). */
const char *cls_filter_build_decision(const cls_filter *filter);
/* The accessors below describe the kernel that serves the next launch. */
/* The generated source (owned by the filter). */
const char *cls_filter_source(const cls_filter *filter);
/* The resolved partition, input path and work-group shape. */
cls_partition cls_filter_partition(const cls_filter *filter);
cls_input_path cls_filter_input_path(const cls_filter *filter);
void cls_filter_group_shape(const cls_filter *filter, unsigned *width, unsigned *height);
/* How the filter applies its mask: CLS_SEPARABLE_NONE (every tap of the window), SINGLE_PASS or
 * TWO_PASS (a rank-1 mask as a row and a column pass; cls_spec.separable). */
cls_separable cls_filter_separable(const cls_filter *filter);
/* How the filter computes its weighted sum: CLS_METHOD_DIRECT or CLS_METHOD_FFT (cls_spec.method). */
cls_method cls_filter_method(const cls_filter *filter);
/* For memory planning: the device memory a launch over width x height outputs (depth slices of a
 * volume; 0 or 1 for an image) allocates beyond its input and output and keeps for the next
 * launches: the temporary images of a two-pass or low-rank filter, of an operator in stages and
 * of a volume's passes; by FFT the tiles of a chunk and the mask's spectrum, for each of the two
 * layouts it keeps (VkFFT's own buffers not counted); while a tiered build runs, at least what its
 * kernel will keep once it serves. 0 for one generated kernel. */
size_t cls_filter_device_bytes(const cls_filter *filter, size_t width, size_t height, size_t depth);
/* The kernels one launch runs, one after another: 1; 2 for a two-pass filter; an operator in
 * stages (the compositions, a rectangle's min and max) its stages and, for the top-hats, the
 * subtraction. A launch's event is the last kernel's: its profiling times cover that one only. */
unsigned cls_filter_kernel_count(const cls_filter *filter);
/* The resolved output rows and columns per work-item (a two-pass filter: its row pass's). */
void cls_filter_outputs_per_item(const cls_filter *filter, unsigned *rows, unsigned *cols);
/* Enqueues the filter on the context's queue after the events of wait_list; *event (may be
 * NULL) receives the launch's event, which the caller releases. Checks the geometry and the
 * buffers' sizes, then returns without waiting. */
cls_status cls_filter_enqueue(cls_filter *filter, cl_mem input, cl_mem output,
                              const cls_image_desc *image, cl_uint wait_count,
                              const cl_event *wait_list, cl_event *event);
/* Convenience: copies host images in, runs, copies the result out and waits. The device buffers
 * are the context's, kept between runs (as large as the largest run's images until the context
 * is released); runs of one context on host images take turns on them. */
cls_status cls_filter_run_host(cls_filter *filter, const void *input, void *output,
                               const cls_image_desc *image);
/* One host image through several devices: filters[k] built by cls_filter_create from one spec on
 * contexts of different devices (the same device twice: two contexts that overlap their copies).
 * The rows to compute are split into `count` bands, one a filter, run at once by a thread a band;
 * each device gets its band and the rows the mask reaches above and below, so the result is the
 * one cls_filter_run_host of filters[0] gives (the FFT method: within its tolerance). Waits for
 * every band; the first failure's status, with its band in the message. At most CLS_MAX_SPREAD
 * filters; filters that write several outputs are refused. */
#define CLS_MAX_SPREAD 64
cls_status cls_filter_run_host_spread(cls_filter *const *filters, size_t count, const void *input, void *output,
                                      const cls_image_desc *image);
/* The number of output buffers a launch writes: mask_count, or 1 with an epilogue. */
unsigned cls_filter_output_count(const cls_filter *filter);
/* A multi-output filter's launch: outputs[k] receives mask k's result (every output with the
 * geometry of image's output). cls_filter_enqueue is this with one output. */
cls_status cls_filter_enqueue_outputs(cls_filter *filter, cl_mem input, cl_uint output_count,
                                      const cl_mem *outputs, const cls_image_desc *image,
                                      cl_uint wait_count, const cl_event *wait_list, cl_event *event);
/* The same with host images: outputs[k] for each output. */
cls_status cls_filter_run_host_outputs(cls_filter *filter, const void *input, unsigned output_count,
                                       void *const *outputs, const cls_image_desc *image);

/* What the build of a filter's kernel reported (kept in the binary cache with the binary). */
typedef struct cls_build_info {
    size_t struct_size;          /* sizeof(cls_build_info), set by the caller: CLS_BUILD_INFO_INIT */
    uint32_t registers;          /* per work-item, from ptxas on NVIDIA; 0 if unknown */
    uint32_t spill_store_bytes, spill_load_bytes, stack_frame_bytes; /* ptxas (NVIDIA) */
    uint64_t work_group_size;    /* CL_KERNEL_WORK_GROUP_SIZE */
    uint64_t private_mem_size;   /* CL_KERNEL_PRIVATE_MEM_SIZE */
    uint64_t local_mem_size;     /* CL_KERNEL_LOCAL_MEM_SIZE */
    uint64_t preferred_multiple; /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    int from_disk_cache;         /* 1 when the binary came from the disk cache */
    double build_milliseconds;   /* source build or binary load, wall time */
} cls_build_info;
/* The start of a designated initializer of a cls_build_info:
 * cls_build_info info = {CLS_BUILD_INFO_INIT}; */
#define CLS_BUILD_INFO_INIT .struct_size = sizeof(cls_build_info)

/* What the build of the filter's kernel reported, into *info (its struct_size set by the caller:
 * the fields that fit, struct_size kept). */
cls_status cls_filter_build_info(const cls_filter *filter, cls_build_info *info);

/* ---------------------------------------------------------------- operators */

/* An operator: a spec with the storage it needs (mask, body). Border, partition, work-group
 * shape and pixel types are set on a copy of its spec. */
typedef struct cls_operator cls_operator;

/* Parses an operator, case-insensitively:
 *   correlate:WxH,c1,...,cN  any mask, row by row, applied as written (a correlation:
 *                            out(x, y) = sum c(i, j) * in(x + i - W/2, y + j - H/2)); sides
 *                            up to 63, even ones too (cell W/2 on the output pixel, as scipy)
 *   convolve:WxH,c1,...,cN   the mask flipped (rows and columns reversed), then correlated: a
 *                            true convolution, scipy's convolve (the spec holds it flipped)
 *   gaussian:SIZE[,SIGMA]    normalized; SIGMA defaults to 0.3*((SIZE-1)/2 - 1) + 0.8
 *   box:SIZE                 the mean over SIZE x SIZE
 *   laplace[:3|5]            3x3 (4-neighbour) or 5x5 Laplacian (default 3)
 *   sobel:x|y|mag            3x3 Sobel derivatives; mag = their hypotenuse, in one kernel
 *   scharr:x|y|mag[,SIZE]    Scharr derivatives, SIZE 3, 5, 7 or 9 (default 3)
 *   bilateral:SD,SR[,SIZE]   spatial sigma SD, range sigma SR, window SIZE (default 4*SD+1, odd)
 *   atrous:D                 the 3x3 B3-spline smoothing dilated by D (1, 2, 4, 8, ...)
 *   tonemap[:SCALE]          the Night filter's tone-mapping point operator, v / (1 + v); with
 *                            SCALE (255 for u8) on values of 0..SCALE, mapped to 0..1 and back
 *   median:FOOTPRINT         the median (rank N/2 of the footprint's N pixels)
 *   percentile:P,FOOTPRINT   rank floor(N*P/100) (N-1 for P = 100), P from 0 to 100
 *   min:FOOTPRINT            the minimum, grey erosion (erode: the same); NaN pixels are skipped
 *   max:FOOTPRINT            the maximum (scipy's maximum_filter)
 *   dilate:FOOTPRINT         grey dilation: the maximum over the footprint reflected through its
 *                            centre (the same as max for rect, cross and disk)
 *   morphgradient:FOOTPRINT  grey dilation - grey erosion, in one pass
 *   opening:FOOTPRINT        grey opening: erosion, then dilation of its result (two stages)
 *   closing:FOOTPRINT        grey closing: dilation, then erosion of its result (two stages)
 *   tophat:FOOTPRINT         white top-hat: the input minus its opening
 *   blackhat:FOOTPRINT       black top-hat: the closing minus the input
 *                            FOOTPRINT: WIN[,SHAPE] or mask:FILE. WIN: SIZE or WxH, odd sides up
 *                            to 63 (31 for the two-stage compositions, whose window is 2W-1 x
 *                            2H-1); SHAPE: rect (default), cross (centre row and column) or disk
 *                            (dx^2/rx^2 + dy^2/ry^2 <= 1 with rx = W/2, ry = H/2). mask:FILE: the
 *                            footprint drawn in a text file, a line of 0s and 1s per row (sides
 *                            up to 63, an even one anchored at cell W/2 as scipy's; the rest of
 *                            the text is the path). Median and percentile: 1024 pixels at most
 *   dog:S1,S2[,SIZE]         difference of Gaussians G(S1) - G(S2), two masks in one kernel
 *   log:SIGMA[,SIZE]         Laplacian of Gaussian (scipy's gaussian_laplace), one mask
 *   gaussian_d:SIGMA,OX,OY[,SIZE]  the Gaussian's derivative of order OX along x and OY along y
 *                            (0, 1 or 2 each), one mask: scipy's gaussian_filter(order=(OY, OX))
 *   unsharp:SIGMA,AMOUNT[,SIZE]  in + AMOUNT * (in - G(SIGMA)), one mask
 *                            dog, log, gaussian_d, unsharp: SIZE defaults to 2*int(4*SIGMA+0.5)+1
 *                            (the larger sigma), scipy's truncate 4.0
 * Bad names or parameters are CLS_ERR_INVALID_ARGUMENT with a message naming them. */
cls_status cls_operator_parse(const char *text, cls_operator **out);
/* A user-written operator (see cls_spec.body) over a WxH window; mask may be NULL (all 1). */
cls_status cls_operator_user(const char *body, unsigned width, unsigned height, const float *mask,
                             cls_operator **out);
/* A user-written operator of volumes over a WxHxD window (odd sides, D up to CLS_MAX_MASK_DEPTH):
 * the body reads IN(dx, dy, dz), MASK(dx, dy, dz) and FOR_WINDOW(dx, dy, dz), and may read x, y,
 * z, width, height and depth; it assigns OUT (no OUT_AT, stages, reduction or separation). mask
 * (D slices of H rows of W, x fastest) may be NULL (all 1). */
cls_status cls_operator_user_volume(const char *body, unsigned width, unsigned height, unsigned depth,
                                    const float *mask, cls_operator **out);
/* Operators from arrays, scipy.ndimage's way: windows of any sides, odd or even, with the output
 * pixel at cell side/2 + origin along each axis (origin from -(side/2) to (side-1)/2; NULL: 0 on
 * every axis; OpenCV calls it the anchor). Such a window runs as the smallest centred odd window
 * that holds it, which must fit CLS_MAX_MASK (CLS_MAX_MASK_DEPTH along z).
 * cls_operator_weights: the weighted sum of WIDTH x HEIGHT (x DEPTH; 0: a 2-D mask) finite
 * weights, x fastest, applied as written (scipy's correlate; origin x, y, z).
 * cls_operator_footprint: the rank or morphology operator NAME (median, percentile of PERCENT,
 * min/erode, max, dilate, morphgradient, opening, closing, tophat, blackhat: as
 * cls_operator_parse has them) over the footprint CELLS, WIDTH x HEIGHT (x DEPTH; 0: 2-D), x
 * fastest, non-zero for a pixel of the footprint (at least one); origin x, y, z. dilate and the
 * compositions follow scipy's grey_dilation: the footprint reflected through the output pixel.
 * A volume's footprint (DEPTH 1 or more) takes min, erode, max and dilate (cls_spec.reduction). */
cls_status cls_operator_weights(const float *weights, unsigned width, unsigned height, unsigned depth,
                                const int origin[3], cls_operator **out);
cls_status cls_operator_footprint(const char *name, double percent, const unsigned char *cells, unsigned width,
                                  unsigned height, unsigned depth, const int origin[3], cls_operator **out);
/* The operator's spec (owned by the operator) and its canonical text, e.g. "gaussian:5,1.2". */
const cls_spec *cls_operator_spec(const cls_operator *op);
const char *cls_operator_name(const cls_operator *op);
void cls_operator_release(cls_operator *op);

/* ---------------------------------------------------------------- pipelines */

/* Stages on the device, one after another, reading images by name: the pipeline's inputs and the
 * results of earlier stages. A stencil stage (a spec) reads one image; an element-wise stage
 * computes an OpenCL C expression of up to four images pixel by pixel ("input - blur",
 * "input + 1.5f * (input - blur)", "max(a, b)", "hypot(gx, gy)"). The last stage added writes the
 * output; every other image must be read by a later stage. Intermediate images stay on the
 * device in buffers the pipeline owns (a whole image each, reused once their last reader ran);
 * no host round trip in between. A plain chain (cls_pipeline_add) names nothing: each stage
 * reads the one before, the first the input. Its stencil stages are all 2-D operators, run on
 * images, or all volumes' operators (mask_depth), run on volumes (the image description's depth
 * and slice pitches; element-wise stages then voxel by voxel, on packed slices). */
typedef struct cls_pipeline cls_pipeline;

cls_status cls_pipeline_create(cls_context *context, cls_pipeline **out);
void cls_pipeline_release(cls_pipeline *pipeline);
/* Declares an input image NAME of TYPE (not f64: a pipeline's last stage may write f64, its
 * inputs are u8, u16, i16, f16 or f32), before any stage. Every input has the launch's size,
 * input row pitch and offset. A pipeline that declares none gets one named "input", of the first
 * stage's input type, when its first stencil stage is added (an element-wise first stage has no
 * type to give it: declare the inputs first). Names are C identifiers of at most 31
 * characters, not OpenCL C words, not starting with cls_; each names one image. */
cls_status cls_pipeline_add_input(cls_pipeline *pipeline, const char *name, cls_pixel_type type);
/* Appends a stencil stage NAME (NULL: "stageN", N its number from 1) applying SPEC to the image
 * FROM (NULL: the last image added), built now. Its input type must be FROM's type; FROM may not
 * be a stage with the undefined border (its border pixels are unwritten). */
cls_status cls_pipeline_add_stage(cls_pipeline *pipeline, const char *name, const cls_spec *spec, const char *from);
/* cls_pipeline_add_stage(pipeline, NULL, spec, NULL): the next stage of a chain. */
cls_status cls_pipeline_add(cls_pipeline *pipeline, const cls_spec *spec);
/* Appends an element-wise stage NAME (NULL: "stageN") computing EXPRESSION, one OpenCL C
 * expression (at most 1 KiB, no ; { } [ ] # quotes or comments) of the images it names, read as
 * float, with the functions and constants of OpenCL C; the result is stored as OUTPUT_TYPE
 * (rounded and saturated for integer types; not f64: it computes in float). An unknown name, more than four images or a
 * malformed expression is CLS_ERR_INVALID_ARGUMENT naming it; the kernel is built now. */
cls_status cls_pipeline_add_elementwise(cls_pipeline *pipeline, const char *name, const char *expression,
                                        cls_pixel_type output_type);
/* Appends the Night filter of the ISP paper: a-trous smoothing at 3x3, 5x5, 9x9 and 17x17
 * (dilations 1, 2, 4, 8), then the tone-mapping point operator; five stages. The first reads
 * input_type, the last writes output_type, the ones between use f32. With the same integer type
 * in and out (u8, u16, i16), the tone mapping works on that type's scale (tonemap:255,
 * tonemap:65535, tonemap:32767: 0..max is 0..1); otherwise on the values as they come. */
cls_status cls_pipeline_add_night(cls_pipeline *pipeline, cls_border border, cls_pixel_type input_type,
                                  cls_pixel_type output_type);
size_t cls_pipeline_input_count(const cls_pipeline *pipeline);
size_t cls_pipeline_stage_count(const cls_pipeline *pipeline);
/* Stage INDEX's filter (NULL for an element-wise stage), name, and expression (NULL for a
 * stencil stage). */
cls_filter *cls_pipeline_stage(const cls_pipeline *pipeline, size_t index);
const char *cls_pipeline_stage_name(const cls_pipeline *pipeline, size_t index);
const char *cls_pipeline_stage_expression(const cls_pipeline *pipeline, size_t index);
/* CLS_OK when a launch would be accepted: the pipeline has a stage, and every input and every
 * stage but the last is read by a later stage (else the message names the image nobody reads). */
cls_status cls_pipeline_check(const cls_pipeline *pipeline);
/* The intermediate images a launch holds at once (each a whole image of up to 4-byte pixels),
 * for memory planning; 0 when a launch would be refused (an image nobody reads). */
size_t cls_pipeline_intermediate_count(const cls_pipeline *pipeline);
/* The device memory a launch over width x height x depth (0 or 1 for images) allocates beyond its
 * inputs and output: the intermediate images and each stage's cls_filter_device_bytes. */
size_t cls_pipeline_device_bytes(const cls_pipeline *pipeline, size_t width, size_t height, size_t depth);
/* How far the output reaches into the inputs: the largest sum of half windows along any path of
 * stages, in columns (*x) and rows (*y). A piece of an image filtered with that many of the
 * image's columns and rows around it (the image's own border handling where the piece meets the
 * image's edge; in repeat mode the rows or columns of the opposite edge) gives the whole image's
 * outputs, bit for bit. Either pointer may be NULL. */
void cls_pipeline_reach(const cls_pipeline *pipeline, unsigned *x, unsigned *y);
/* Enqueues every stage in order, each after the one before; inputs are read with the
 * description's input pitch and offset, the last stage writes `output` (its pitch, offset and
 * region of interest); the others compute whole images. *event is the last stage's.
 * stage_events, when not NULL, receives one event per stage (the caller releases them), for
 * timing. INPUT_COUNT must be the pipeline's input count (inputs in the order declared). */
cls_status cls_pipeline_enqueue_inputs(cls_pipeline *pipeline, size_t input_count, const cl_mem *inputs,
                                       cl_mem output, const cls_image_desc *image, cl_uint wait_count,
                                       const cl_event *wait_list, cl_event *event, cl_event *stage_events);
/* cls_pipeline_enqueue_inputs with one input. */
cls_status cls_pipeline_enqueue(cls_pipeline *pipeline, cl_mem input, cl_mem output,
                                const cls_image_desc *image, cl_uint wait_count,
                                const cl_event *wait_list, cl_event *event, cl_event *stage_events);
/* Convenience: host images in and out, waits; through the context's buffers, as
 * cls_filter_run_host (the output and up to four inputs; more inputs through buffers of the
 * call). */
cls_status cls_pipeline_run_host_inputs(cls_pipeline *pipeline, size_t input_count, const void *const *inputs,
                                        void *output, const cls_image_desc *image);
cls_status cls_pipeline_run_host(cls_pipeline *pipeline, const void *input, void *output,
                                 const cls_image_desc *image);

/* ---------------------------------------------------------------- binary cache */

/* The on-disk binary cache: CLSTENCIL_CACHE_DIR, else $XDG_CACHE_HOME/clstencil, else
 * ~/.cache/clstencil; CLSTENCIL_CACHE=off disables it; CLSTENCIL_CACHE_MAX caps its size
 * (bytes, or with a K, M or G suffix; default 256M), evicting least recently used entries. */
typedef struct cls_cache_status {
    size_t struct_size; /* sizeof(cls_cache_status), set by the caller: CLS_CACHE_STATUS_INIT */
    int enabled;
    char directory[4096];
    size_t entries;
    uint64_t bytes, max_bytes;
    unsigned long hits, misses; /* disk-cache lookups of this process */
} cls_cache_status;
/* The start of a designated initializer of a cls_cache_status:
 * cls_cache_status status = {CLS_CACHE_STATUS_INIT}; */
#define CLS_CACHE_STATUS_INIT .struct_size = sizeof(cls_cache_status)

/* The cache's folder, size and this process's hits and misses (into the fields that fit the
 * caller's struct_size, which is kept). */
cls_status cls_cache_query(cls_cache_status *status);
/* Removes every entry; *removed (may be NULL) receives the number of files removed. */
cls_status cls_cache_clear(size_t *removed);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* CLSTENCIL_H */
