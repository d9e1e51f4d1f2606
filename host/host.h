/* host.h — internal declarations of the program and launch stage: device discovery, selection,
 * contexts and filters. */
#ifndef CLS_HOST_H
#define CLS_HOST_H

#include "clstencil.h"
#include "planner.h"
#include "tuning.h"

#include <pthread.h>

struct cls_device_list {
    size_t count;
    cls_device_caps *caps;
    cl_device_id *ids;
};

struct cls_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    cls_device_caps caps;
    cls_arch_record record; /* matched database record (policy defaults) */
    cls_match_level match_level;
    pthread_mutex_t programs_lock; /* guards programs */
    pthread_cond_t program_built;  /* a build in progress finished (programs.c) */
    struct cls_program_entry *programs; /* built programs, one per source and options */
    cls_tuning_table tuning; /* shipped and user tuning results, as loaded at creation */
    char warnings[2048];     /* configuration files skipped at creation, one line each */
    pthread_mutex_t host_run_lock;                  /* guards the host runs' buffers (host_run.c) */
    cl_mem host_run_buffers[1 + CLS_MAX_MASKS];     /* the input, then the outputs */
    size_t host_run_bytes[1 + CLS_MAX_MASKS];
    cl_command_queue host_run_queues[2];            /* a chunked run's copies in and out */
    pthread_mutex_t pinned_lock;                    /* guards pinned (host_memory.c) */
    struct cls_pinned *pinned;                      /* cls_host_alloc's allocations */
};

/* Frees what cls_host_alloc gave and cls_host_free did not take back (cls_context_release). */
void cls_host_memory_release(cls_context *context);

/* A run on host images (host_run.c): locks the context's host-run buffers and gives an input of
 * INPUT_BYTES and OUTPUT_COUNT outputs of OUTPUT_BYTES, grown where they are smaller (unlocked
 * again on failure); cls_host_run_end unlocks them. */
/* The same for COUNT buffers of BYTES[k] each (at most CLS_HOST_RUN_BUFFERS; a pipeline's
 * inputs and its output), into BUFFERS. */
#define CLS_HOST_RUN_BUFFERS (1 + CLS_MAX_MASKS)
cls_status cls_host_run_reserve(cls_context *context, unsigned count, const size_t *bytes, cl_mem *buffers);
cls_status cls_host_run_begin(cls_context *context, size_t input_bytes, unsigned output_count, size_t output_bytes,
                              cl_mem *input, cl_mem *outputs);
void cls_host_run_end(cls_context *context);
/* The two queues of a chunked run beside the context's (copies in, copies out), made at the first
 * call; the caller holds the host-run buffers (cls_host_run_begin). */
cls_status cls_host_run_queues(cls_context *context, cl_command_queue queues[2]);

/* Frees the buffers and the chunked run's queues (cls_context_release). */
void cls_host_run_release(cls_context *context);

/* Fills the vendor-independent and vendor-specific fields of one device's record. */
cls_status cls_query_device_caps(cl_platform_id platform, cl_device_id device, unsigned platform_index,
                                 unsigned device_index, cls_device_caps *caps);
/* The trivial kernel whose CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE a device without a
 * vendor warp or wavefront width is asked for. */
#define CLS_PROBE_SOURCE "__kernel void probe(__global int *p) { p[get_global_id(0)] = 0; }\n"
#define CLS_PROBE_KERNEL "probe"
/* The device list without cls_device_caps_finish's fields (0; PoCL's multiple from its device
 * query), for a selection that probes only the device it picks (through its context's program
 * cache, so a warm start builds nothing). */
cls_status cls_devices_query_unprobed(cls_device_list **out);
/* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE of the probe kernel, built in a context of its own
 * (0 when it can't be built). */
size_t cls_probe_kernel_multiple(cl_device_id device);
/* Whether the device's preferred work-group multiple needs the probe kernel: it has no vendor's
 * width and gave none to the device query (PoCL's, read with the other caps). */
int cls_device_caps_need_probe(const cls_device_caps *caps);
/* Fills preferred_work_group_multiple (the vendor's width, else probed_multiple, else the device
 * query's) and simd_width. */
void cls_device_caps_finish(cl_device_id device, cls_device_caps *caps, size_t probed_multiple);
/* Normalizes the vendor from the vendor id and the platform, vendor and device names. */
cls_vendor cls_vendor_detect(cl_uint vendor_id, const char *platform_name, const char *vendor_name,
                             const char *device_name);
/* The database architecture key from the vendor fields ("sm_90", "gfx90a", "" if none). */
void cls_arch_key(cls_device_caps *caps);
/* Device selection over an array of records (the logic of cls_device_select). */
cls_status cls_select_device(const cls_device_caps *caps, size_t count, const char *selector,
                             size_t *index);
/* Several devices over an array of records (the logic of cls_device_select_list). */
cls_status cls_select_devices(const cls_device_caps *caps, size_t count, const char *selectors, size_t *indices,
                              size_t capacity, size_t *found);
/* The device fingerprint as a given library version would compute it (cls_device_fingerprint
 * passes its own version; tests simulate an upgrade). */
void cls_fingerprint_with_version(const cls_device_caps *caps, const char *library_version, char out[17]);
/* The resolved spec of a filter (pixel types, mask, border) for pipelines. */
const cls_spec *cls_filter_spec(const cls_filter *filter);
/* The configuration files of cls_set_config_paths. */
typedef enum cls_config_file { CLS_CONFIG_DEVICE_DB = 0, CLS_CONFIG_TUNING = 1 } cls_config_file;
/* 1 and the path in out (possibly "": no file) when the host set the file's path, else 0. */
int cls_config_path(cls_config_file which, char *out, size_t size);
/* Loads the shipped tuning results, then the user's file (cls_tuning_path; a missing file is
 * empty, a malformed one CLS_ERR_PARSE and the table keeps the shipped results). */
cls_status cls_tuning_load(cls_tuning_table *table);
/* Stores an ISP calibration of one border mode in the user's tuning file: the reference's
 * configuration and time (measured) and the check cost per loaded pixel it implies. */
cls_status cls_isp_calibration_store(const cls_context *context, cls_border border, const cls_tuning *measured,
                                     double check_per_load, const char *description);
/* The context's planner: its device, record and tuning results, and builds of filters under the
 * policy to learn a kernel's registers and local memory (build_goals.c). */
cls_planner cls_context_planner(const cls_context *context);
/* The same without the builds, for what needs only the records: the architecture and stored
 * tuning results (context.c). */
cls_planner cls_context_lookup_planner(const cls_context *context);

/* What the works a filter is made of (two_pass.c, staged_filter.c, low_rank.c) and the tiered
 * build (tiered.c) do with their own filters: filter.c's functions, handed to them when they are
 * created (cls_filter_calls_table), so that they never call back into the files that create them. */
typedef struct cls_filter_calls {
    cls_status (*create)(cls_context *context, const cls_spec *spec, cls_filter **out);
    cls_status (*create_fastest)(cls_context *context, const cls_spec *spec, cls_filter **out);
    cls_status (*enqueue)(cls_filter *filter, cl_mem input, cl_mem output, const cls_image_desc *image,
                          cl_uint wait_count, const cl_event *wait_list, cl_event *event);
    cls_status (*wait)(cls_filter *filter);
    const char *(*source)(const cls_filter *filter);
    void (*release)(cls_filter *filter);
} cls_filter_calls;
/* The library's filter functions as a cls_filter_calls (filter.c). */
const cls_filter_calls *cls_filter_calls_table(void);

/* A filter whose `auto` fields the device's policy resolves, without the tuning database (what
 * cls_filter_create falls back to, and what the models start from). */
cls_status cls_filter_create_by_policy(cls_context *context, const cls_spec *spec, cls_filter **out);
/* The kernel specialized for spec (tuned, else modelled, else the policy's), whatever its goal
 * (cls_filter_create, in build_goals.c, chooses by the goal). */
cls_status cls_filter_create_fastest(cls_context *context, const cls_spec *spec, cls_filter **out);
/* Whether coefficient_bytes of coefficients fit the device's kernel-argument space beside the
 * kernel's other arguments (CLS_COEFFICIENTS_ARGUMENT). */
int cls_argument_fits(const cls_device_caps *caps, size_t coefficient_bytes);

/* ---- the background build of CLS_BUILD_TIERED (tiered.c) */

typedef struct cls_tier cls_tier;
/* Hands a tiered filter its background build, which then serves its launches once built; its
 * kernel will keep IMAGES f32 images of a launch's size (a separable pair's temporary, a low-rank
 * mask's terms), which cls_filter_device_bytes counts from now on. */
void cls_filter_attach_tier(cls_filter *filter, cls_tier *tier, unsigned images);
/* Notes what the build goal chose for the filter and why (cls_filter_build_decision). */
void cls_filter_set_decision(cls_filter *filter, const char *decision);
/* Starts a thread that builds spec's specialized kernel (spec and what it points to are copied);
 * DEFERRED: once the launch handed to cls_tier_follow has completed, or at cls_tier_wait. */
cls_status cls_tier_start(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec, int deferred,
                          cls_tier **out);
/* Whether a deferred build still waits for a launch to follow. */
int cls_tier_awaits_launch(cls_tier *tier);
/* Lets a deferred build start once LAUNCH (the quick kernel's first) has completed. */
void cls_tier_follow(cls_tier *tier, cl_event launch);
/* The specialized filter once built, else NULL; safe from any thread. */
cls_filter *cls_tier_ready(const cls_tier *tier);
/* Waits for the build; its status (the message in cls_last_error()). */
cls_status cls_tier_wait(cls_tier *tier);
/* Waits for the build (drops a deferred one not yet started), then frees it and the specialized
 * filter. */
void cls_tier_release(cls_tier *tier);

/* Reads a caller's image description into *copy by its struct_size (cls_struct_read), the fields
 * an older caller lacks at 0. Every public entry that takes one works on such a copy. */
cls_status cls_image_desc_read(const cls_image_desc *image, cls_image_desc *copy);

/* The "OpenCL error name (number)" text for a cl_int. */
const char *cls_cl_error_name(cl_int error);

/* ---- the image input path (image_input.c) */

/* A filter's input as an image2d_t: the caller's buffer is copied into it before each launch. */
typedef struct cls_image_input {
    cl_mem image;        /* CL_R image of the input type, width x height; NULL until a launch */
    size_t width, height;
    cl_mem packed;       /* a packed copy of a row-pitched input, on its way to the image */
    size_t packed_bytes;
} cls_image_input;

/* CLS_ERR_UNSUPPORTED (naming the device) unless it reads CL_R images of `type`. */
cls_status cls_image_input_check(const cls_context *context, cls_pixel_type type);
/* CLS_ERR_UNSUPPORTED when a width x height image exceeds the device's 2-D image limits. */
cls_status cls_image_input_check_size(const cls_context *context, size_t width, size_t height);
/* Copies the width x height input of `buffer` (offset and row pitch in bytes) into
 * input->image (re-created when the size changes) after the events of wait_list; *done
 * receives the event of the last copy, which the kernel reading the image waits for. The
 * caller serializes calls (the filter's launch lock) until that kernel is enqueued. */
cls_status cls_image_input_load(cls_image_input *input, cls_context *context, cls_pixel_type type,
                                cl_mem buffer, size_t offset, size_t pitch, size_t width, size_t height,
                                cl_uint wait_count, const cl_event *wait_list, cl_event *done);
/* Releases the image and the packed copy (the struct itself belongs to the caller). */
void cls_image_input_release(cls_image_input *input);

/* ---- what a filter launches (kernel_work.c, two_pass.c, staged_filter.c) */

/* A launch's image description with its defaults filled in and every size checked (filter.c). */
typedef struct cls_resolved_image {
    size_t pitch[2], offset[2]; /* input, output: bytes */
    size_t slice_pitch[2];      /* input, output: bytes from one slice of a volume to the next */
    size_t bytes[2];            /* the buffer bytes each needs */
    cls_launch_geometry geometry;
    unsigned depth, roi_z, roi_depth; /* a volume's slices and those computed (1, 0, 1: an image) */
} cls_resolved_image;
/* A launch's image checked against a filter's configuration and resolved (image_geometry.c): its
 * pitches and offsets, the bytes of each buffer, the region of interest and its slices. */
cls_status cls_resolve_image(const struct cls_kernel_config *config, const cls_image_desc *image,
                             cls_resolved_image *r);

/* ---- a host run in overlapping chunks of rows (chunked_run.c) */

/* How many chunks of rows a host run of the resolved image takes on the context's device (*CHUNKS
 * 0: one piece): a 2-D image of at least two chunks' bytes on a device with memory of its own, each
 * chunk taller than the 2 REACH + 1 rows its mask spans. A malformed CLSTENCIL_HOST_CHUNK_BYTES
 * is refused. */
cls_status cls_chunked_run_chunks(const cls_context *context, const cls_resolved_image *r, unsigned reach,
                                  unsigned *chunks);
/* Chunk K of CHUNKS over rows [Y0, Y0 + ROWS) of an image of HEIGHT rows: its output rows [first,
 * last) and the input rows its copy adds, [copy_first, copy_last) (empty where the copies before
 * hold them): with every copy before it, the rows its outputs reach, REACH above and below. */
typedef struct cls_chunk_rows {
    size_t first, last, copy_first, copy_last;
} cls_chunk_rows;
void cls_chunk_span(size_t height, size_t y0, size_t rows, unsigned reach, unsigned chunks, unsigned k,
                    cls_chunk_rows *span);
/* A chunk's launch: the filter's kernels over the chunk's region of interest of the whole image,
 * after the events of WAIT_LIST, *EVENT the last one's (filter.c hands it over, so that
 * chunked_run.c never calls back into the file that calls it). */
typedef struct cls_chunk_launch {
    cls_status (*enqueue)(void *launcher, const cls_image_desc *chunk, cl_uint wait_count, const cl_event *wait_list,
                          cl_event *event);
    void *launcher;
} cls_chunk_launch;
/* A host run in CHUNKS chunks of the region of interest's rows (whole packed rows, each written by
 * the launch): the input's rows copied into IN as the chunks need them (REPEAT_ROWS: the border
 * along y wraps, so the first and last REACH rows go first), each chunk's launch after its rows'
 * copy, its rows of the COUNT outputs copied from OUT after it; returns once every copy has ended. */
cls_status cls_chunked_run(cls_context *context, const cls_chunk_launch *launch, const void *input, unsigned count,
                           void *const *outputs, const cls_image_desc *image, const cls_resolved_image *r,
                           cl_mem in, const cl_mem *out, unsigned chunks, unsigned reach, int repeat_rows);

/* One interface for the work a filter launches: a kernel of its own, a separable pair or an
 * operator in stages. The filter is a handle over it: it checks every launch's geometry and
 * buffers and forwards the launch and its questions to the work. */
typedef struct cls_work_ops {
    /* Enqueues the work's kernels after wait_list, each after the one before; *event (may be
     * NULL) is the last one's. image is the caller's description, resolved its checked form. */
    cls_status (*enqueue)(void *work, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                          const cls_image_desc *image, const cls_resolved_image *resolved, cl_uint wait_count,
                          const cl_event *wait_list, cl_event *event);
    /* The kernels one launch runs. */
    unsigned (*kernel_count)(const void *work);
    /* The filter whose configuration describes the work (partition, work-group shape, outputs
     * per work-item), or NULL: the filter's own configuration does. */
    const cls_filter *(*describing)(const void *work);
    /* Waits for the work's background builds; NULL: the filter's tier stands for them. */
    cls_status (*wait)(void *work);
    void (*release)(void *work);
    /* Whether the filter serializes the work's launches (it owns temporary images); a work that
     * does not serializes its own. */
    int serialized;
    /* The device memory a launch over WIDTH x HEIGHT x DEPTH outputs allocates beyond its input
     * and output and keeps (cls_filter_device_bytes); NULL: none worth counting. */
    size_t (*device_bytes)(const void *work, size_t width, size_t height, size_t depth);
} cls_work_ops;

/* A filter's own generated kernel (kernel_work.c), a separable pair (two_pass.c), an operator in
 * stages (staged_filter.c), a weighted sum by FFT (fft_work.c), a low-rank mask's pairs
 * (low_rank.c). */
extern const cls_work_ops cls_kernel_work_ops, cls_two_pass_ops, cls_staged_run_ops, cls_fft_work_ops,
    cls_fft_tile_ops, cls_low_rank_ops, cls_volume_work_ops, cls_volume_passes_ops;

/* The kernel of a resolved configuration (which must outlive the work) and its source: built
 * (or found in the caches), with its mask buffer; *info receives what the build reported. */
/* A volume's weighted sum (volume_work.c): its kernel walking x, y columns down z, launched over
 * the region's columns, rows and blocks of slices. */
typedef struct cls_volume_work cls_volume_work;
cls_status cls_volume_work_create(cls_context *context, const struct cls_kernel_config *config, const char *source,
                                  cls_volume_work **out, cls_build_info *info);
typedef struct cls_kernel_work cls_kernel_work;
cls_status cls_kernel_work_create(cls_context *context, const struct cls_kernel_config *config, const char *source,
                                  cls_kernel_work **out, cls_build_info *info);
/* The bytes of a configuration's coefficients: every mask (a volume's buffer). */
size_t cls_kernel_coefficient_bytes(const struct cls_kernel_config *config);
/* The bytes of a 2-D kernel's mask buffer and of its coefficients as a kernel argument: every
 * mask, or a separable single pass's row and column. */
size_t cls_kernel_argument_bytes(const struct cls_kernel_config *config);

/* ---- weighted sums by FFT (fft_work.c) */

/* Whether the context's queue runs commands in order (queue_order.c). */
int cls_queue_in_order(const cls_context *context);

/* The FFT method's kernels (SOURCE, cls_fft_kernels_source's) for a resolved configuration (which
 * must outlive the work), built now;
 * the transforms are planned on the first launch of each region size. *info receives what the
 * kernels' build reported. CLS_ERR_UNSUPPORTED on an out-of-order queue. */
typedef struct cls_fft_work cls_fft_work;
cls_status cls_fft_work_create(cls_context *context, const struct cls_kernel_config *config, const char *source,
                               cls_fft_work **out, cls_build_info *info);

/* Whether a weighted sum by FFT runs in one kernel, its tiles transformed on chip (fft_tile_work.c),
 * into *on_chip: where the mask fits the device record's fft_tile_max_mask and the device's local
 * memory holds a tile; CLSTENCIL_FFT_TILES=on-chip or vkfft overrides the record (another value
 * is CLS_ERR_INVALID_ARGUMENT). */
cls_status cls_fft_tile_choice(const cls_context *context, const cls_spec *spec, int *on_chip);
/* That kernel (SOURCE, cls_fft_tile_source's) for a resolved configuration (which must outlive
 * the work), built now, with the mask's spectrum. */
typedef struct cls_fft_tile_work cls_fft_tile_work;
cls_status cls_fft_tile_work_create(cls_context *context, const struct cls_kernel_config *config, const char *source,
                                    cls_fft_tile_work **out, cls_build_info *info);

/* ---- low-rank masks (low_rank.c) */

/* A spec's mask of rank 2 to CLS_LOW_RANK_MAX as RANK separable pairs: term k's row is
 * rows[k * mask_width ...], its column columns[k * mask_height ...]; *info receives what the
 * sum's build reported. */
typedef struct cls_low_rank cls_low_rank;
cls_status cls_low_rank_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                               const float *rows, const float *columns, unsigned rank, cls_low_rank **out,
                               cls_build_info *info);
/* Every pair's sources, then the sum's (owned). */
const char *cls_low_rank_source(const cls_low_rank *low_rank);

/* ---- separable two-pass filters (two_pass.c) */

/* A row pass (input type -> f32 temporary image) and a column pass (-> output type). */
/* A separable volume mask as a pass an axis (volume_passes.c), from its coefficients. */
typedef struct cls_volume_passes cls_volume_passes;
cls_status cls_volume_passes_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                                    const float *coefficients, cls_volume_passes **out);
void cls_volume_passes_release(cls_volume_passes *work);
const char *cls_volume_passes_source(const cls_volume_passes *work);
typedef struct cls_two_pass cls_two_pass;

/* Builds both passes of a resolved spec (separable two-pass) whose mask is column x row. */
cls_status cls_two_pass_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                               const float *row, const float *column, cls_two_pass **out);
void cls_two_pass_release(cls_two_pass *two_pass);
/* Both generated sources, the row pass first, a comment line between (owned). */
const char *cls_two_pass_source(const cls_two_pass *two_pass);
/* The row pass (0) or the column pass (1). */
cls_filter *cls_two_pass_filter(const cls_two_pass *two_pass, int pass);

#endif
