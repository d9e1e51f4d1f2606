"""The part of include/clstencil.h that the Python package calls, as cffi declarations.

cffi's ABI mode reads these instead of the header, so struct layouts must match the header field
for field; python/tests/test_abi_layout.py compares every struct's size and offsets with the
real header, so a change there that is not made here fails the tests.
"""

# OpenCL's handle and scalar types, as <CL/cl.h> defines them on every platform.
OPENCL_TYPES = """
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_event *cl_event;
"""

STRUCTS = """
typedef struct cls_device_caps {
    unsigned platform_index, device_index;
    char platform_name[128];
    char platform_version[128];
    char name[128];
    char vendor_name[128];
    int vendor;
    int type;
    cl_uint vendor_id;
    char driver_version[64];
    char device_version[128];
    char opencl_c_version[64];
    cl_uint address_bits;
    cl_uint compute_units;
    cl_uint max_clock_mhz;
    cl_ulong global_mem_size;
    cl_ulong local_mem_size;
    cl_ulong max_constant_buffer_size;
    size_t max_parameter_size;
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t preferred_work_group_multiple;
    cl_uint simd_width;
    int image_support;
    size_t image2d_max_width, image2d_max_height;
    int has_nv_attributes;
    cl_uint nv_compute_capability_major, nv_compute_capability_minor;
    cl_uint nv_registers_per_block;
    cl_uint nv_warp_size;
    int has_amd_attributes;
    cl_uint amd_wavefront_width;
    cl_uint amd_simds_per_cu;
    char amd_board_name[128];
    char amd_gfx_target[32];
    int has_intel_ip_version;
    cl_uint intel_ip_version;
    char arch[32];
} cls_device_caps;

typedef struct cls_spec {
    unsigned mask_width, mask_height;
    const float *coefficients;
    int bake_coefficients;
    int border;
    float border_value;
    int partition;
    unsigned group_width, group_height;
    unsigned rows_per_item;
    unsigned cols_per_item;
    int fold_equal_taps;
    int input_path;
    int separable;
    const float *row_coefficients;
    const float *column_coefficients;
    unsigned mask_count;
    const char *epilogue;
    int input_type, output_type;
    const char *body;
    unsigned expected_width, expected_height;
    int build_goal;
    int region_code;
} cls_spec;

typedef struct cls_image_desc {
    size_t width, height;
    size_t input_row_pitch, output_row_pitch;
    size_t input_offset, output_offset;
    size_t roi_x, roi_y, roi_width, roi_height;
} cls_image_desc;

typedef struct cls_cache_status {
    int enabled;
    char directory[4096];
    size_t entries;
    uint64_t bytes, max_bytes;
    unsigned long hits, misses;
} cls_cache_status;
"""

FUNCTIONS = """
typedef struct cls_device_list cls_device_list;
typedef struct cls_context cls_context;
typedef struct cls_filter cls_filter;
typedef struct cls_operator cls_operator;
typedef struct cls_pipeline cls_pipeline;

const char *cls_last_error(void);
const char *cls_status_name(int status);
const char *cls_version(void);

int cls_devices_query(cls_device_list **out);
void cls_device_list_release(cls_device_list *list);
size_t cls_device_list_count(const cls_device_list *list);
const cls_device_caps *cls_device_list_get(const cls_device_list *list, size_t index);
int cls_device_select(const cls_device_list *list, const char *selector, size_t *index);
const char *cls_vendor_name(int vendor);
const char *cls_device_type_name(int type);

int cls_border_parse(const char *name, int *out);
const char *cls_border_name(int border);
const char *cls_pixel_type_name(int type);
int cls_spec_validate(const cls_spec *spec);

int cls_context_create(const char *selector, cls_context **out);
int cls_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue, cls_context **out);
void cls_context_release(cls_context *context);
const cls_device_caps *cls_context_device(const cls_context *context);
cl_context cls_context_cl(const cls_context *context);
cl_command_queue cls_context_queue(const cls_context *context);

int cls_filter_create(cls_context *context, const cls_spec *spec, cls_filter **out);
void cls_filter_release(cls_filter *filter);
unsigned cls_filter_output_count(const cls_filter *filter);
int cls_filter_run_host(cls_filter *filter, const void *input, void *output, const cls_image_desc *image);
int cls_filter_enqueue(cls_filter *filter, cl_mem input, cl_mem output, const cls_image_desc *image,
                       cl_uint wait_count, const cl_event *wait_list, cl_event *event);

int cls_operator_parse(const char *text, cls_operator **out);
int cls_operator_user(const char *body, unsigned width, unsigned height, const float *mask,
                      cls_operator **out);
const cls_spec *cls_operator_spec(const cls_operator *op);
const char *cls_operator_name(const cls_operator *op);
void cls_operator_release(cls_operator *op);

int cls_pipeline_create(cls_context *context, cls_pipeline **out);
void cls_pipeline_release(cls_pipeline *pipeline);
int cls_pipeline_add(cls_pipeline *pipeline, const cls_spec *spec);
int cls_pipeline_add_night(cls_pipeline *pipeline, int border, int input_type, int output_type);
size_t cls_pipeline_stage_count(const cls_pipeline *pipeline);
int cls_pipeline_run_host(cls_pipeline *pipeline, const void *input, void *output,
                          const cls_image_desc *image);
int cls_pipeline_enqueue(cls_pipeline *pipeline, cl_mem input, cl_mem output, const cls_image_desc *image,
                         cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                         cl_event *stage_events);

int cls_cache_query(cls_cache_status *status);
"""

DECLARATIONS = OPENCL_TYPES + STRUCTS + FUNCTIONS
