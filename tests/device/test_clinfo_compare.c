/* test_clinfo_compare.c — clstencil's capability record must never contradict clinfo, the
 * reference OpenCL query tool. Runs `clinfo --json` and `clstencil devices --all --json` and
 * compares, for every platform and device: platform and device names, vendor id, driver version,
 * device and OpenCL C versions, compute units, max clock, global/local/constant memory sizes, max
 * work-group size and work-item sizes, image support, and, where the vendor extensions are
 * present, NVIDIA compute capability, registers per block and warp size, AMD wavefront width and
 * board name. Any difference fails, with one line per difference:
 *
 *   device P:D NAME: N fields compared, M differ
 *     FIELD: clinfo=... clstencil=...
 *
 * Usage: test_clinfo_compare PATH-TO-CLSTENCIL. Skipped only when clinfo is not on PATH.
 *
 * Matching: clinfo's platform i, online device j <-> clstencil's device with platform_index i and
 * device_index j (both enumerate with clGetPlatformIDs / clGetDeviceIDs(CL_DEVICE_TYPE_ALL)), and
 * the names must agree; a device listed by only one of the two is a failure. So a machine whose
 * first platform is PoCL and second an NVIDIA GPU compares 0:0 with 0:0 and 1:0 with 1:0.
 *
 * clinfo's JSON (verified against clinfo 3.0.23.01.25, src/clinfo.c of Oblomov/clinfo, and its
 * real output on Debian 12): {"platforms": [{CL_PLATFORM_NAME, ...}], "devices": [one entry per
 * platform: {"online": [{CL_DEVICE_NAME, ...}]}], "icd_loader": {...}}. --json forces clinfo's RAW
 * mode, so multi-part properties are printed as separate keys: compute capability is
 * CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV and CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV (integers; the
 * human-mode "9.0" line is not used in JSON); CL_DEVICE_REGISTERS_PER_BLOCK_NV and
 * CL_DEVICE_WARP_SIZE_NV are integers (shown when the device has cl_nv_device_attribute_query);
 * CL_DEVICE_BOARD_NAME_AMD is a string (cl_amd_device_attribute_query) and
 * CL_DEVICE_WAVEFRONT_WIDTH_AMD an integer (AMD GPUs only). The output has duplicate keys and odd
 * keys such as " raw ", which json-c tolerates and which this test never reads.
 *
 * Tolerance is for representation only, never for value: integers may be JSON numbers, decimal
 * or hex strings ("0x10de") or objects with a "raw" member; booleans may be true/false, 0/1 or
 * "CL_TRUE"/"Yes"; compute capability may also come as one "M.m" value; work-item sizes as an
 * array or an "AxBxC" string. Strings are compared byte for byte.
 *
 * Vendor-extension fields: compared when both sides have them; present in clstencil but not in
 * clinfo is reported ("not in clinfo") without failing; present in clinfo but missing from
 * clstencil is a difference. Core fields must be present on both sides. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *clstencil_path; /* argv[1] */

/* ---------------------------------------------------------------- the fields */

typedef enum { KIND_STRING, KIND_UINT, KIND_BOOL, KIND_SIZES } field_kind;

typedef struct field {
    const char *group;      /* NULL: top level of the clstencil device; "nvidia" / "amd": that sub-object */
    const char *key;        /* clstencil key inside group */
    const char *clinfo_key; /* key in clinfo's device object (NULL: filled in specially) */
    field_kind kind;
} field;

static const field FIELDS[] = {
    {NULL, "platform_name", NULL, KIND_STRING}, /* clinfo: platforms[i].CL_PLATFORM_NAME */
    {NULL, "name", "CL_DEVICE_NAME", KIND_STRING},
    {NULL, "vendor_id", "CL_DEVICE_VENDOR_ID", KIND_UINT},
    {NULL, "driver_version", "CL_DRIVER_VERSION", KIND_STRING},
    {NULL, "device_version", "CL_DEVICE_VERSION", KIND_STRING},
    {NULL, "opencl_c_version", "CL_DEVICE_OPENCL_C_VERSION", KIND_STRING},
    {NULL, "compute_units", "CL_DEVICE_MAX_COMPUTE_UNITS", KIND_UINT},
    {NULL, "max_clock_mhz", "CL_DEVICE_MAX_CLOCK_FREQUENCY", KIND_UINT},
    {NULL, "global_mem_size", "CL_DEVICE_GLOBAL_MEM_SIZE", KIND_UINT},
    {NULL, "local_mem_size", "CL_DEVICE_LOCAL_MEM_SIZE", KIND_UINT},
    {NULL, "max_constant_buffer_size", "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE", KIND_UINT},
    {NULL, "max_work_group_size", "CL_DEVICE_MAX_WORK_GROUP_SIZE", KIND_UINT},
    {NULL, "max_work_item_sizes", "CL_DEVICE_MAX_WORK_ITEM_SIZES", KIND_SIZES},
    {NULL, "image_support", "CL_DEVICE_IMAGE_SUPPORT", KIND_BOOL},
    {"nvidia", "compute_capability_major", "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV", KIND_UINT},
    {"nvidia", "compute_capability_minor", "CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV", KIND_UINT},
    {"nvidia", "registers_per_block", "CL_DEVICE_REGISTERS_PER_BLOCK_NV", KIND_UINT},
    {"nvidia", "warp_size", "CL_DEVICE_WARP_SIZE_NV", KIND_UINT},
    {"amd", "wavefront_width", "CL_DEVICE_WAVEFRONT_WIDTH_AMD", KIND_UINT},
    {"amd", "board_name", "CL_DEVICE_BOARD_NAME_AMD", KIND_STRING},
};
#define N_FIELDS (sizeof FIELDS / sizeof FIELDS[0])

/* ---------------------------------------------------------------- representation */

static json_object *member(json_object *object, const char *key)
{
    json_object *value = NULL;
    if (!object || !json_object_is_type(object, json_type_object)) return NULL;
    return json_object_object_get_ex(object, key, &value) ? value : NULL;
}

static const char *text_of(json_object *value)
{
    if (!value) return "<missing>";
    return json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A whole-string unsigned integer, decimal or 0x-hex. */
static int parse_u64(const char *text, uint64_t *out)
{
    while (isspace((unsigned char)*text)) ++text;
    if (!isdigit((unsigned char)*text)) return 0;
    errno = 0;
    char *end = NULL;
    const unsigned long long value = strtoull(text, &end, 0);
    if (errno || end == text) return 0;
    while (isspace((unsigned char)*end)) ++end;
    if (*end) return 0;
    *out = (uint64_t)value;
    return 1;
}

/* An unsigned integer in any of the forms clinfo or clstencil print. */
static int as_u64(json_object *value, uint64_t *out)
{
    if (!value) return 0;
    switch (json_object_get_type(value)) {
    case json_type_int:
        if (text_of(value)[0] == '-') return 0;
        *out = json_object_get_uint64(value);
        return 1;
    case json_type_double: {
        const double d = json_object_get_double(value);
        if (!(d >= 0.0 && d < 18446744073709551616.0)) return 0;
        const uint64_t u = (uint64_t)d;
        if ((double)u != d) return 0;
        *out = u;
        return 1;
    }
    case json_type_string:
        return parse_u64(json_object_get_string(value), out);
    case json_type_object: { /* {"raw": N, ...}; clinfo also writes " raw " */
        json_object *raw = member(value, "raw");
        if (!raw) raw = member(value, " raw ");
        return raw && !json_object_is_type(raw, json_type_object) && as_u64(raw, out);
    }
    default:
        return 0;
    }
}

static int as_bool(json_object *value, int *out)
{
    if (!value) return 0;
    switch (json_object_get_type(value)) {
    case json_type_boolean:
        *out = json_object_get_boolean(value) ? 1 : 0;
        return 1;
    case json_type_int: {
        const int64_t v = json_object_get_int64(value);
        if (v != 0 && v != 1) return 0;
        *out = (int)v;
        return 1;
    }
    case json_type_string: {
        static const char *const yes[] = {"true", "CL_TRUE", "Yes"}, *const no[] = {"false", "CL_FALSE", "No"};
        const char *s = json_object_get_string(value);
        for (size_t i = 0; i < 3; ++i) {
            if (strcmp(s, yes[i]) == 0) return *out = 1, 1;
            if (strcmp(s, no[i]) == 0) return *out = 0, 1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* The first three work-item sizes, from a JSON array or an "AxBxC" / "A B C" / "A, B, C" string. */
static int as_sizes(json_object *value, uint64_t out[3])
{
    if (!value) return 0;
    if (json_object_is_type(value, json_type_array)) {
        if (json_object_array_length(value) < 3) return 0;
        for (size_t i = 0; i < 3; ++i)
            if (!as_u64(json_object_array_get_idx(value, i), &out[i])) return 0;
        return 1;
    }
    if (json_object_is_type(value, json_type_string)) {
        const char *p = json_object_get_string(value);
        for (size_t i = 0; i < 3; ++i) {
            while (*p == ' ' || *p == ',' || *p == 'x') ++p;
            if (!isdigit((unsigned char)*p)) return 0;
            errno = 0;
            char *end = NULL;
            out[i] = (uint64_t)strtoull(p, &end, 10);
            if (errno || end == p) return 0;
            p = end;
        }
        return 1;
    }
    return 0;
}

/* Splits an "M.m" compute capability (string, or a number as clinfo wrote it). */
static int split_capability(json_object *value, uint64_t *major, uint64_t *minor)
{
    if (!value) return 0;
    if (!json_object_is_type(value, json_type_string) && !json_object_is_type(value, json_type_double)) return 0;
    const char *text = json_object_is_type(value, json_type_string) ? json_object_get_string(value) : text_of(value);
    const char *dot = strchr(text, '.');
    if (!dot || dot == text || dot - text > 20) return 0;
    char head[24];
    memcpy(head, text, (size_t)(dot - text));
    head[dot - text] = '\0';
    return parse_u64(head, major) && parse_u64(dot + 1, minor);
}

static int values_equal(field_kind kind, json_object *a, json_object *b)
{
    switch (kind) {
    case KIND_STRING:
        return json_object_is_type(a, json_type_string) && json_object_is_type(b, json_type_string) &&
               strcmp(json_object_get_string(a), json_object_get_string(b)) == 0;
    case KIND_UINT: {
        uint64_t x, y;
        return as_u64(a, &x) && as_u64(b, &y) && x == y;
    }
    case KIND_BOOL: {
        int x, y;
        return as_bool(a, &x) && as_bool(b, &y) && x == y;
    }
    case KIND_SIZES: {
        uint64_t x[3], y[3];
        return as_sizes(a, x) && as_sizes(b, y) && x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
    }
    }
    return 0;
}

/* ---------------------------------------------------------------- the two views */

/* clinfo's value for field f of this device (NULL when clinfo doesn't show it). *made receives
 * a new object the caller must release, when one had to be built (split compute capability). */
static json_object *clinfo_value(const field *f, json_object *platform, json_object *device, json_object **made)
{
    *made = NULL;
    if (!f->clinfo_key) return member(platform, "CL_PLATFORM_NAME");
    json_object *value = member(device, f->clinfo_key);
    const int is_major = strcmp(f->clinfo_key, "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV") == 0;
    const int is_minor = strcmp(f->clinfo_key, "CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV") == 0;
    if (is_major || is_minor) {
        /* clinfo --json prints MAJOR and MINOR as separate integers; accept one combined
         * "M.m" value too (in MAJOR, or under CL_DEVICE_COMPUTE_CAPABILITY_NV). */
        json_object *combined = NULL;
        uint64_t major, minor;
        if (value && split_capability(value, &major, &minor)) combined = value;
        else if (!value) {
            json_object *major_value = member(device, "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV");
            json_object *cc = member(device, "CL_DEVICE_COMPUTE_CAPABILITY_NV");
            if (major_value && split_capability(major_value, &major, &minor)) combined = major_value;
            else if (cc && split_capability(cc, &major, &minor)) combined = cc;
        }
        if (combined) {
            *made = json_object_new_uint64(is_major ? major : minor);
            return *made;
        }
    }
    return value;
}

static json_object *clstencil_value(const field *f, json_object *device)
{
    return f->group ? member(member(device, f->group), f->key) : member(device, f->key);
}

/* ---------------------------------------------------------------- the comparison */

typedef struct compare_result {
    int devices;     /* devices matched and compared */
    int fields;      /* fields compared, all devices */
    int differences; /* fields that differ (or are missing where they must not be) */
    int device_set;  /* devices listed by one side only, duplicates, or malformed output */
} compare_result;

static void field_name(const field *f, char *out, size_t size)
{
    if (f->group) snprintf(out, size, "%s.%s", f->group, f->key);
    else snprintf(out, size, "%s", f->key);
}

static void compare_device(int p, int d, json_object *platform, json_object *cl_device, json_object *cls_device,
                           compare_result *r)
{
    char lines[N_FIELDS][1024];
    int n_lines = 0, compared = 0, differ = 0;
    for (size_t i = 0; i < N_FIELDS; ++i) {
        const field *f = &FIELDS[i];
        char name[64];
        field_name(f, name, sizeof name);
        json_object *made = NULL;
        json_object *ours = clstencil_value(f, cls_device);
        json_object *theirs = clinfo_value(f, platform, cl_device, &made);
        if (f->group && !theirs) {
            if (ours)
                snprintf(lines[n_lines++], sizeof lines[0], "  %s: not in clinfo (clstencil=%s)", name,
                         text_of(ours));
        } else {
            ++compared;
            if (!ours || !theirs || !values_equal(f->kind, theirs, ours)) {
                ++differ;
                snprintf(lines[n_lines++], sizeof lines[0], "  %s: clinfo=%s clstencil=%s", name, text_of(theirs),
                         text_of(ours));
            }
        }
        if (made) json_object_put(made);
    }
    const char *name = json_object_get_string(member(cl_device, "CL_DEVICE_NAME"));
    printf("device %d:%d %s: %d fields compared, %d differ\n", p, d, name ? name : "<unnamed>", compared, differ);
    for (int i = 0; i < n_lines; ++i) printf("%s\n", lines[i]);
    r->devices++;
    r->fields += compared;
    r->differences += differ;
}

static int index_of(json_object *device, const char *key)
{
    json_object *value = member(device, key);
    return value && json_object_is_type(value, json_type_int) ? json_object_get_int(value) : -1;
}

/* Compares the parsed outputs of `clinfo --json` and `clstencil devices --all --json`, printing
 * the per-device report and the total. */
static compare_result compare_outputs(json_object *clinfo, json_object *clstencil)
{
    compare_result r = {0, 0, 0, 0};
    json_object *platforms = member(clinfo, "platforms");
    json_object *per_platform = member(clinfo, "devices"); /* absent when clinfo found no platform */
    json_object *ours = member(clstencil, "devices");
    if (!json_object_is_type(platforms, json_type_array)) {
        printf("clinfo output has no \"platforms\" array\n");
        r.device_set++;
        return r;
    }
    if (!json_object_is_type(ours, json_type_array)) {
        printf("clstencil output has no \"devices\" array\n");
        r.device_set++;
        return r;
    }
    const size_t n_platforms = json_object_array_length(platforms);
    const size_t n_lists = json_object_is_type(per_platform, json_type_array) ? json_object_array_length(per_platform) : 0;
    if (n_lists != n_platforms) {
        printf("clinfo lists %zu platforms but device lists for %zu\n", n_platforms, n_lists);
        r.device_set++;
    }
    const size_t n_ours = json_object_array_length(ours);
    int *matched = calloc(n_ours ? n_ours : 1, sizeof *matched);
    for (size_t i = 0; i < n_ours; ++i) /* duplicates in clstencil's list */
        for (size_t j = 0; j < i; ++j) {
            json_object *a = json_object_array_get_idx(ours, i), *b = json_object_array_get_idx(ours, j);
            if (index_of(a, "platform_index") == index_of(b, "platform_index") &&
                index_of(a, "device_index") == index_of(b, "device_index")) {
                printf("device %d:%d listed twice by clstencil\n", index_of(a, "platform_index"),
                       index_of(a, "device_index"));
                r.device_set++;
            }
        }
    for (size_t p = 0; p < n_lists; ++p) {
        json_object *platform = p < n_platforms ? json_object_array_get_idx(platforms, p) : NULL;
        json_object *online = member(json_object_array_get_idx(per_platform, p), "online");
        const size_t n_devices = json_object_is_type(online, json_type_array) ? json_object_array_length(online) : 0;
        for (size_t d = 0; d < n_devices; ++d) {
            json_object *cl_device = json_object_array_get_idx(online, d);
            json_object *cls_device = NULL;
            for (size_t i = 0; i < n_ours && !cls_device; ++i) {
                json_object *candidate = json_object_array_get_idx(ours, i);
                if (index_of(candidate, "platform_index") == (int)p && index_of(candidate, "device_index") == (int)d) {
                    cls_device = candidate;
                    matched[i] = 1;
                }
            }
            if (!cls_device) {
                const char *name = json_object_get_string(member(cl_device, "CL_DEVICE_NAME"));
                printf("device %zu:%zu %s: listed by clinfo, missing from clstencil\n", p, d, name ? name : "<unnamed>");
                r.device_set++;
                continue;
            }
            compare_device((int)p, (int)d, platform, cl_device, cls_device, &r);
            /* the name is one of the fields compared; a different device at the same place
             * also means the two lists disagree */
            if (!values_equal(KIND_STRING, member(cl_device, "CL_DEVICE_NAME"), member(cls_device, "name"))) {
                printf("  (device %zu:%zu is not the same device in both lists)\n", p, d);
                r.device_set++;
            }
        }
    }
    for (size_t i = 0; i < n_ours; ++i)
        if (!matched[i]) {
            json_object *device = json_object_array_get_idx(ours, i);
            const char *name = json_object_get_string(member(device, "name"));
            printf("device %d:%d %s: listed by clstencil, not by clinfo\n", index_of(device, "platform_index"),
                   index_of(device, "device_index"), name ? name : "<unnamed>");
            r.device_set++;
        }
    free(matched);
    printf("total: %d devices, %d fields compared, %d differ", r.devices, r.fields, r.differences);
    if (r.device_set) printf(", %d device-list problems", r.device_set);
    printf("\n");
    fflush(stdout);
    return r;
}

/* ---------------------------------------------------------------- running the tools */

static int on_path(const char *program)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char *copy = strdup(path), *save = NULL;
    int found = 0;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", program);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* Appends text single-quoted for the shell. */
static void append_quoted(char *out, size_t size, const char *text)
{
    size_t n = strlen(out);
    if (n + 1 < size) out[n++] = '\'';
    for (; *text && n + 5 < size; ++text) {
        if (*text == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *text;
        }
    }
    if (n + 1 < size) out[n++] = '\'';
    out[n] = '\0';
}

/* Runs command, returns its stdout (malloc'd) and its exit status in *status. */
static char *capture(const char *command, int *status)
{
    FILE *pipe = popen(command, "r");
    if (!pipe) return NULL;
    size_t size = 0, capacity = 1 << 16;
    char *text = malloc(capacity);
    size_t got;
    while (text && (got = fread(text + size, 1, capacity - size - 1, pipe)) > 0) {
        size += got;
        if (capacity - size < 2) {
            char *bigger = realloc(text, capacity *= 2);
            if (!bigger) free(text);
            text = bigger;
        }
    }
    const int raw = pclose(pipe);
    *status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    if (text) text[size] = '\0';
    return text;
}

static json_object *parse_or_report(const char *what, const char *text)
{
    json_object *root = text ? json_tokener_parse(text) : NULL;
    if (!root) printf("%s did not print JSON:\n%.2000s\n", what, text ? text : "<no output>");
    return root;
}

/* ---------------------------------------------------------------- tests */

static void clinfo_and_clstencil_agree(void **state)
{
    (void)state;
    if (!on_path("clinfo")) {
        print_message("clinfo not installed (apt-get install clinfo)\n");
        skip();
    }
    if (!clstencil_path) fail_msg("usage: test_clinfo_compare PATH-TO-CLSTENCIL");
    if (access(clstencil_path, X_OK) != 0) fail_msg("%s is not an executable", clstencil_path);

    int clinfo_status = 0, clstencil_status = 0;
    char *clinfo_text = capture("clinfo --json 2>/dev/null", &clinfo_status);
    char command[4096] = "";
    append_quoted(command, sizeof command, clstencil_path);
    strncat(command, " devices --all --json", sizeof command - strlen(command) - 1);
    char *clstencil_text = capture(command, &clstencil_status);

    json_object *clinfo = clinfo_status == 0 ? parse_or_report("clinfo --json", clinfo_text) : NULL;
    json_object *clstencil = clstencil_status == 0 ? parse_or_report(command, clstencil_text) : NULL;
    free(clinfo_text);
    free(clstencil_text);
    if (clinfo_status != 0 || clstencil_status != 0 || !clinfo || !clstencil) {
        json_object_put(clinfo);
        json_object_put(clstencil);
        fail_msg("clinfo --json exited %d, clstencil devices --all --json exited %d (or printed no JSON)",
                 clinfo_status, clstencil_status);
    }
    const compare_result r = compare_outputs(clinfo, clstencil);
    json_object_put(clinfo);
    json_object_put(clstencil);
    if (r.devices == 0 && r.device_set == 0) printf("note: neither clinfo nor clstencil lists an OpenCL device\n");
    if (r.differences || r.device_set)
        fail_msg("clstencil contradicts clinfo: %d differing fields, %d device-list problems", r.differences,
                 r.device_set);
}

/* A PoCL CPU on platform 0 and an NVIDIA H100 on platform 1, in clinfo 3.0.23's JSON layout
 * (duplicate keys and " raw " included), and the matching clstencil record. */
static const char FAKE_CLINFO[] =
    "{ \"platforms\" : ["
    " { \"CL_PLATFORM_NAME\" : \"Portable Computing Language\", \"CL_PLATFORM_VENDOR\" : \"The pocl project\","
    "   \"CL_PLATFORM_NUMERIC_VERSION\" : { \"raw\" : 12582912, \"version\" : \"3.0.0\" } },"
    " { \"CL_PLATFORM_NAME\" : \"NVIDIA CUDA\", \"CL_PLATFORM_VENDOR\" : \"NVIDIA Corporation\" } ],"
    " \"devices\" : ["
    " { \"online\" : [ { \"CL_DEVICE_NAME\" : \"pthread-skylake-avx512-AMD EPYC\", \"CL_DEVICE_VENDOR\" : \"AuthenticAMD\","
    "   \"CL_DEVICE_VENDOR_ID\" : 32902,"
    "   \"CL_DEVICE_VERSION\" : \"OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512\","
    "   \"CL_DEVICE_NUMERIC_VERSION\" : { \" raw \" : 12582912, \"version\" : \"3.0.0\" },"
    "   \"CL_DRIVER_VERSION\" : \"3.1+debian\", \"CL_DEVICE_OPENCL_C_VERSION\" : \"OpenCL C 1.2 PoCL\","
    "   \"CL_DEVICE_OPENCL_C_ALL_VERSIONS\" : {\"OpenCL C\" : { \"raw\" : 4194304, \"version\" : \"1.0.0\" },"
    "     \"OpenCL C\" : { \"raw\" : 12582912, \"version\" : \"3.0.0\" } },"
    "   \"CL_DEVICE_TYPE\" : { \"raw\" : 2, \"type\" : [ \"CL_DEVICE_TYPE_CPU\" ] },"
    "   \"CL_DEVICE_MAX_COMPUTE_UNITS\" : 2, \"CL_DEVICE_MAX_CLOCK_FREQUENCY\" : 2596,"
    "   \"CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS\" : 3, \"CL_DEVICE_MAX_WORK_ITEM_SIZES\" :  [4096, 4096, 4096 ],"
    "   \"CL_DEVICE_MAX_WORK_GROUP_SIZE\" : 4096, \"CL_DEVICE_GLOBAL_MEM_SIZE\" : 3896140800,"
    "   \"CL_DEVICE_IMAGE_SUPPORT\" : true, \"CL_DEVICE_LOCAL_MEM_TYPE\" : \"CL_GLOBAL\","
    "   \"CL_DEVICE_LOCAL_MEM_SIZE\" : 1048576, \"CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE\" : 1048576,"
    "   \"CL_DEVICE_EXTENSIONS\" : \"cl_khr_byte_addressable_store cl_khr_fp64\" } ] },"
    " { \"online\" : [ { \"CL_DEVICE_NAME\" : \"NVIDIA H100 80GB HBM3\", \"CL_DEVICE_VENDOR\" : \"NVIDIA Corporation\","
    "   \"CL_DEVICE_VENDOR_ID\" : 4318, \"CL_DEVICE_VERSION\" : \"OpenCL 3.0 CUDA\","
    "   \"CL_DRIVER_VERSION\" : \"550.54.15\", \"CL_DEVICE_OPENCL_C_VERSION\" : \"OpenCL C 1.2 \","
    "   \"CL_DEVICE_TYPE\" : { \"raw\" : 4, \"type\" : [ \"CL_DEVICE_TYPE_GPU\" ] },"
    "   \"CL_DEVICE_PCI_BUS_ID_NV\" : 24, \"CL_DEVICE_PCI_SLOT_ID_NV\" : 0, \"CL_DEVICE_PCI_DOMAIN_ID_NV\" : 0,"
    "   \"CL_DEVICE_MAX_COMPUTE_UNITS\" : 132, \"CL_DEVICE_MAX_CLOCK_FREQUENCY\" : 1980,"
    "   \"CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV\" : 9, \"CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV\" : 0,"
    "   \"CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS\" : 3, \"CL_DEVICE_MAX_WORK_ITEM_SIZES\" :  [1024, 1024, 64 ],"
    "   \"CL_DEVICE_MAX_WORK_GROUP_SIZE\" : 1024, \"CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE\" : 32,"
    "   \"CL_DEVICE_WARP_SIZE_NV\" : 32, \"CL_DEVICE_GLOBAL_MEM_SIZE\" : 84929216512,"
    "   \"CL_DEVICE_INTEGRATED_MEMORY_NV\" : false, \"CL_DEVICE_IMAGE_SUPPORT\" : true,"
    "   \"CL_DEVICE_LOCAL_MEM_TYPE\" : \"CL_LOCAL\", \"CL_DEVICE_LOCAL_MEM_SIZE\" : 49152,"
    "   \"CL_DEVICE_REGISTERS_PER_BLOCK_NV\" : 65536, \"CL_DEVICE_MAX_CONSTANT_ARGS\" : 9,"
    "   \"CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE\" : 65536, \"CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV\" : false,"
    "   \"CL_DEVICE_EXTENSIONS\" : \"cl_khr_fp64 cl_nv_device_attribute_query cl_khr_icd\" } ] } ],"
    " \"icd_loader\" : { \"CL_ICDL_NAME\" : \"OpenCL ICD Loader\", \"_detected_version\" : \"3.0\" } }";

static const char FAKE_CLSTENCIL_HEAD[] =
    "{\"library_version\":\"0.1.0\",\"devices\":["
    "{\"platform_index\":0,\"device_index\":0,\"default\":false,"
    "\"platform_name\":\"Portable Computing Language\",\"name\":\"pthread-skylake-avx512-AMD EPYC\","
    "\"vendor\":\"PoCL\",\"vendor_name\":\"AuthenticAMD\",\"vendor_id\":32902,\"type\":\"cpu\","
    "\"driver_version\":\"3.1+debian\","
    "\"device_version\":\"OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512\","
    "\"opencl_c_version\":\"OpenCL C 1.2 PoCL\",\"compute_units\":2,\"max_clock_mhz\":2596,"
    "\"global_mem_size\":3896140800,\"local_mem_size\":1048576,\"max_constant_buffer_size\":1048576,"
    "\"max_work_group_size\":4096,\"max_work_item_sizes\":[4096,4096,4096],\"image_support\":true},"
    "{\"platform_index\":1,\"device_index\":0,\"default\":true,"
    "\"platform_name\":\"NVIDIA CUDA\",\"name\":\"NVIDIA H100 80GB HBM3\",\"vendor\":\"NVIDIA\","
    "\"vendor_name\":\"NVIDIA Corporation\",\"vendor_id\":4318,\"type\":\"gpu\",\"driver_version\":\"550.54.15\","
    "\"device_version\":\"OpenCL 3.0 CUDA\",\"opencl_c_version\":\"OpenCL C 1.2 \",\"compute_units\":132,"
    "\"max_clock_mhz\":1980,\"global_mem_size\":84929216512,\"local_mem_size\":49152,"
    "\"max_constant_buffer_size\":65536,\"max_work_group_size\":1024,\"max_work_item_sizes\":[1024,1024,64],"
    "\"image_support\":true,\"nvidia\":{\"compute_capability_major\":9,\"compute_capability_minor\":0,"
    "\"registers_per_block\":65536,";

static json_object *fake_clstencil(int warp_size)
{
    char text[sizeof FAKE_CLSTENCIL_HEAD + 64];
    snprintf(text, sizeof text, "%s\"warp_size\":%d},\"arch\":\"sm_90\"}]}", FAKE_CLSTENCIL_HEAD, warp_size);
    json_object *root = json_tokener_parse(text);
    assert_non_null(root);
    return root;
}

static void fake_nvidia_pair_agrees(void **state)
{
    (void)state;
    json_object *clinfo = json_tokener_parse(FAKE_CLINFO);
    assert_non_null(clinfo);
    json_object *clstencil = fake_clstencil(32);
    const compare_result r = compare_outputs(clinfo, clstencil);
    json_object_put(clinfo);
    json_object_put(clstencil);
    assert_int_equal(r.devices, 2);
    assert_int_equal(r.fields, 14 + 18); /* PoCL: core fields; NVIDIA: core + 4 vendor fields */
    assert_int_equal(r.differences, 0);
    assert_int_equal(r.device_set, 0);
}

static void fake_nvidia_pair_one_difference(void **state)
{
    (void)state;
    json_object *clinfo = json_tokener_parse(FAKE_CLINFO);
    assert_non_null(clinfo);
    json_object *clstencil = fake_clstencil(64); /* clinfo says 32 */
    const compare_result r = compare_outputs(clinfo, clstencil);
    json_object_put(clinfo);
    json_object_put(clstencil);
    assert_int_equal(r.devices, 2);
    assert_int_equal(r.differences, 1);
    assert_int_equal(r.device_set, 0);
}

/* A copy of text with the first occurrence of from (which must occur) replaced by to. */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    char *out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
    assert_non_null(out);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* Representation tolerance is for representation only: the same values written differently
 * agree, while vendor fields missing from clstencil and devices on one side only are caught. */
static void representations_and_device_sets(void **state)
{
    (void)state;
    uint64_t major = 0, minor = 0, u = 0;
    uint64_t sizes[3];
    int b = -1;
    json_object *v = json_tokener_parse("\"9.0\"");
    assert_true(split_capability(v, &major, &minor));
    assert_true(major == 9 && minor == 0);
    json_object_put(v);
    v = json_tokener_parse("8.6");
    assert_true(split_capability(v, &major, &minor));
    assert_true(major == 8 && minor == 6);
    json_object_put(v);
    v = json_tokener_parse("\"0x10de\"");
    assert_true(as_u64(v, &u) && u == 4318);
    json_object_put(v);
    v = json_tokener_parse("{\" raw \": 12582912, \"version\": \"3.0.0\"}");
    assert_true(as_u64(v, &u) && u == 12582912);
    json_object_put(v);
    v = json_tokener_parse("18446744073709551615");
    assert_true(as_u64(v, &u) && u == UINT64_MAX);
    json_object_put(v);
    v = json_tokener_parse("-1");
    assert_false(as_u64(v, &u));
    json_object_put(v);
    v = json_tokener_parse("\"32 bytes\"");
    assert_false(as_u64(v, &u));
    json_object_put(v);
    v = json_tokener_parse("\"CL_TRUE\"");
    assert_true(as_bool(v, &b) && b == 1);
    json_object_put(v);
    v = json_tokener_parse("\"1024x1024x64\"");
    assert_true(as_sizes(v, sizes) && sizes[0] == 1024 && sizes[1] == 1024 && sizes[2] == 64);
    json_object_put(v);

    /* clinfo with a combined "9.0" compute capability and a hex vendor id: still 0 differences */
    char *step = replaced(FAKE_CLINFO,
                          "\"CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV\" : 9, \"CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV\" : 0",
                          "\"CL_DEVICE_COMPUTE_CAPABILITY_NV\" : \"9.0\"");
    char *text = replaced(step, "\"CL_DEVICE_VENDOR_ID\" : 4318", "\"CL_DEVICE_VENDOR_ID\" : \"0x10de\"");
    free(step);
    json_object *clinfo = json_tokener_parse(text);
    free(text);
    assert_non_null(clinfo);
    json_object *clstencil = fake_clstencil(32);
    compare_result r = compare_outputs(clinfo, clstencil);
    assert_int_equal(r.differences, 0);
    assert_int_equal(r.device_set, 0);

    /* vendor fields clinfo shows but clstencil's record lacks are differences, one per field */
    json_object *devices = NULL;
    assert_true(json_object_object_get_ex(clstencil, "devices", &devices));
    json_object_object_del(json_object_array_get_idx(devices, 1), "nvidia");
    r = compare_outputs(clinfo, clstencil);
    assert_int_equal(r.differences, 4);
    assert_int_equal(r.device_set, 0);

    /* a device clstencil does not list is a failure of the device sets, not silently skipped */
    json_object_array_del_idx(devices, 1, 1);
    r = compare_outputs(clinfo, clstencil);
    assert_int_equal(r.devices, 1);
    assert_int_equal(r.device_set, 1);
    json_object_put(clinfo);
    json_object_put(clstencil);
}

int main(int argc, char **argv)
{
    clstencil_path = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clinfo_and_clstencil_agree),
        cmocka_unit_test(fake_nvidia_pair_agrees),
        cmocka_unit_test(fake_nvidia_pair_one_difference),
        cmocka_unit_test(representations_and_device_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
