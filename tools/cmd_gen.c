/* cmd_gen.c — `clstencil gen`: prints the OpenCL C source generated for a stencil spec, every
 * kernel variant included. No device is needed; the SIMD width for isp-warp comes from --simd. */
#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "user_operator.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void gen_usage(FILE *out)
{
    fprintf(out,
            "usage: clstencil gen [-m | --mask WxH] [--coefficients c1,c2,... | --row LIST --column LIST]\n"
            "                     [--masks N] [--epilogue EXPR] [--bake [--fold] | --argument-mask]\n"
            "                     [--shared-regions | --separate-regions | --body-apart-regions]\n"
            "                     [--border MODE] [--value V] [--partition P] [--wg WxH]\n"
            "                     [--type T | --in-type T --out-type T] [--simd N]\n"
            "                     [--rows N] [--cols N] [--input PATH] [--separable S] [--body FILE]\n"
            "  -m, --mask WxH       odd mask sizes 1..%d (default 3x3)\n"
            "  --coefficients LIST  W*H comma-separated values, row by row, for each mask one after\n"
            "                       another (default: box masks, mask k scaled by k+1)\n"
            "  --row LIST           W values and --column LIST H values: the mask is their outer\n"
            "  --column LIST        product (instead of --coefficients)\n"
            "  --masks N            masks applied in one pass, 1..%d, each with its own output\n"
            "                       (default 1)\n"
            "  --epilogue EXPR      one output from the masks' sums r0..r3, e.g. 'hypot(r0, r1)'\n"
            "  --bake               coefficients as literals in the source (default: __constant buffer)\n"
            "  --argument-mask      coefficients as a by-value kernel argument (unrolled like --bake)\n"
            "  --shared-regions     the ISP regions share one copy of the unrolled sums\n"
            "  --separate-regions   each ISP region has its own copy\n"
            "  --body-apart-regions the body, left and right regions have their own copies, every\n"
            "                       other border group runs a fourth (the default)\n"
            "  --fold               baked taps with equal coefficients share one multiplication\n"
            "  -b, --border MODE    undefined, clamp, mirror, mirror101, repeat, constant (and aliases);\n"
            "                       X,Y: a mode along x (columns) and one along y (rows)\n"
            "  --value V            the constant border value (default 0)\n"
            "  -p, --partition P    naive, isp-block, isp-warp, auto (default auto)\n"
            "  --wg WxH             work-group shape (default auto)\n"
            "  -t, --type T         pixel type of input and output: f32, u8, u16, i16, f16, f64 (default f32)\n"
            "  --simd N             SIMD width for isp-warp (default 32)\n"
            "  --body FILE          a user-written operator body (IN, MASK, FOR_WINDOW, OUT or OUT_AT)\n"
            "  --rows N             output rows per work-item: 1 to 8, or 16, 32, 64 or 128\n"
            "                       (streaming: a window of partial sums walks down the strip)\n"
            "                       (default 1)\n"
            "  --cols N             output columns per work-item: 1, 2, 4 or 8 (default 1)\n"
            "  --input PATH         where taps read: auto, global, local, image (default auto)\n"
            "  --separable S        auto, none, single-pass, two-pass (default auto); two-pass\n"
            "                       prints the row pass's source, then the column pass's\n"
            "  -o, --output FILE    write the source to FILE instead of the standard output\n"
            "  -h, --help           this text\n",
            CLS_MAX_MASK, CLS_MAX_MASKS);
}

#define BORDERS "undefined, clamp, mirror, mirror101, repeat or constant, or X,Y (a mode per axis)"
#define TYPES "f32, u8, u16, i16, f16 or f64"

/* gen's options; the flags (no value) come last. */
static const cli_option GEN_OPTIONS[] = {
    {"--mask", 'm', "WxH with odd sides from 1 to 63"}, {"--wg", 0, "WxH"},
    {"--coefficients", 0, "comma-separated numbers"}, {"--row", 0, "comma-separated numbers"},
    {"--column", 0, "comma-separated numbers"}, {"--border", 'b', BORDERS}, {"--value", 0, "a finite number"},
    {"--partition", 'p', "naive, isp-block, isp-warp or auto"}, {"--input", 0, "auto, global, local or image"},
    {"--separable", 0, "auto, none, single-pass or two-pass"}, {"--type", 't', TYPES}, {"--in-type", 0, TYPES},
    {"--out-type", 0, TYPES}, {"--simd", 0, "a whole number"}, {"--rows", 0, "1 to 8, 16, 32, 64 or 128"},
    {"--cols", 0, "1, 2, 4 or 8"}, {"--masks", 0, "1 to 4"}, {"--epilogue", 0, "an expression of r0..r3"},
    {"--body", 0, "a file"}, {"--output", 'o', "a file"},
    {"--bake", 0, NULL}, {"--argument-mask", 0, NULL}, {"--shared-regions", 0, NULL}, {"--separate-regions", 0, NULL}, {"--body-apart-regions", 0, NULL},
    {"--fold", 0, NULL},
};

/* `expected` comma-separated numbers (malloc'd), or NULL after a message naming `option`. */
static float *parse_numbers(const char *option, const char *text, size_t expected)
{
    float *values = malloc((expected ? expected : 1) * sizeof *values);
    if (!values) return NULL;
    size_t count = 0;
    const char *p = text;
    while (*p && count < expected) {
        char *end;
        errno = 0;
        values[count++] = strtof(p, &end);
        if (end == p || errno) break;
        p = end;
        if (*p == ',') ++p;
        else if (*p) break;
    }
    if (count != expected || *p) {
        fprintf(stderr, "clstencil gen: %s needs %zu comma-separated numbers\n", option, expected);
        free(values);
        return NULL;
    }
    return values;
}

/* A whole decimal number for `option`, or 0 after a message. */
static int parse_count(const char *option, const char *text, unsigned *value)
{
    char *end;
    errno = 0;
    const unsigned long number = strtoul(text, &end, 10);
    if (end == text || *end || errno || number > 1000000 || text[0] == '-') {
        fprintf(stderr, "clstencil gen: %s wants a whole number, not '%s'\n", option, text);
        return 0;
    }
    *value = (unsigned)number;
    return 1;
}

/* parse_count of a count the library reads as "the default" when 0 (masks, rows, columns, the
 * SIMD width): on the command line a 0 is a slip, refused. */
static int parse_positive(const char *option, const char *text, unsigned *value)
{
    if (!parse_count(option, text, value)) return 0;
    if (*value == 0) fprintf(stderr, "clstencil gen: %s wants at least 1, not 0\n", option);
    return *value != 0;
}

/* The texts of the options that give the mask, parsed once the mask size is known. */
typedef struct mask_texts {
    const char *coefficients, *row, *column;
} mask_texts;

/* The options that take no value; 1 when `a` was one of them. */
static int parse_flag(const char *a, cls_spec *spec)
{
    if (strcmp(a, "--bake") == 0) spec->bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    else if (strcmp(a, "--argument-mask") == 0) spec->bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
    else if (strcmp(a, "--shared-regions") == 0) spec->region_code = CLS_REGION_CODE_SHARED;
    else if (strcmp(a, "--separate-regions") == 0) spec->region_code = CLS_REGION_CODE_SEPARATE;
    else if (strcmp(a, "--body-apart-regions") == 0) spec->region_code = CLS_REGION_CODE_BODY_APART;
    else if (strcmp(a, "--fold") == 0) spec->fold_equal_taps = 1;
    else return 0;
    return 1;
}

/* One option with its value: 1 when known (*status says whether the library accepted it), 0
 * after a message when the option or its value is bad. */
static int parse_option(const char *a, const char *v, cls_spec *spec, mask_texts *texts, char **body,
                        unsigned *simd, cls_status *status)
{
    *status = CLS_OK;
    if (strcmp(a, "--mask") == 0 || strcmp(a, "--wg") == 0) {
        const int mask = strcmp(a, "--mask") == 0;
        if (!parse_size(v, mask ? &spec->mask_width : &spec->group_width,
                        mask ? &spec->mask_height : &spec->group_height)) {
            fprintf(stderr, "clstencil gen: %s wants WxH, not '%s'\n", a, v);
            return 0;
        }
    } else if (strcmp(a, "--coefficients") == 0) texts->coefficients = v;
    else if (strcmp(a, "--row") == 0) texts->row = v;
    else if (strcmp(a, "--column") == 0) texts->column = v;
    else if (strcmp(a, "--border") == 0) {
        cls_border axes[3];
        if ((*status = cls_border_parse_axes(v, axes)) == CLS_OK)
            spec->border = axes[0], spec->border_y = axes[1], spec->border_z = axes[2];
    }
    else if (strcmp(a, "--value") == 0) {
        char *end;
        spec->border_value = strtof(v, &end);
        if (end == v || *end || !isfinite(spec->border_value)) {
            fprintf(stderr, "clstencil gen: bad value '%s' for --value (a finite number)\n", v);
            return 0;
        }
    }
    else if (strcmp(a, "--partition") == 0) *status = cls_partition_parse(v, &spec->partition);
    else if (strcmp(a, "--input") == 0) *status = cls_input_path_parse(v, &spec->input_path);
    else if (strcmp(a, "--separable") == 0) *status = cls_separable_parse(v, &spec->separable);
    else if (strcmp(a, "--type") == 0) {
        *status = cls_pixel_type_parse(v, &spec->input_type);
        spec->output_type = spec->input_type;
    } else if (strcmp(a, "--in-type") == 0) *status = cls_pixel_type_parse(v, &spec->input_type);
    else if (strcmp(a, "--out-type") == 0) *status = cls_pixel_type_parse(v, &spec->output_type);
    else if (strcmp(a, "--simd") == 0) return parse_positive(a, v, simd);
    else if (strcmp(a, "--rows") == 0) return parse_positive(a, v, &spec->rows_per_item);
    else if (strcmp(a, "--cols") == 0) return parse_positive(a, v, &spec->cols_per_item);
    else if (strcmp(a, "--masks") == 0) return parse_positive(a, v, &spec->mask_count);
    else if (strcmp(a, "--epilogue") == 0) spec->epilogue = v;
    else if (strcmp(a, "--body") == 0) {
        free(*body);
        if (!(*body = user_operator_read_body(v))) return 0;
        spec->body = *body;
    }
    return 1;
}

/* The mask storage the spec points to: coefficients (given, or box masks k scaled by k+1 when
 * no vectors are given), row and column. 0 after a message. Sizes the library rejects leave
 * the pointers NULL so that validation names the field. */
static int make_masks(cls_spec *spec, const mask_texts *texts, float **storage)
{
    if (spec->mask_width > CLS_MAX_MASK || spec->mask_height > CLS_MAX_MASK) return 1;
    const unsigned masks = spec->mask_count ? spec->mask_count : 1;
    if (masks > CLS_MAX_MASKS) return 1;
    const size_t taps = (size_t)spec->mask_width * spec->mask_height;
    if (texts->row && !(storage[1] = parse_numbers("--row", texts->row, spec->mask_width))) return 0;
    if (texts->column && !(storage[2] = parse_numbers("--column", texts->column, spec->mask_height))) return 0;
    if (texts->coefficients) {
        if (!(storage[0] = parse_numbers("--coefficients", texts->coefficients, taps * masks))) return 0;
    } else if (!texts->row && !texts->column) {
        if (!(storage[0] = malloc(taps * masks * sizeof(float)))) return 0;
        for (size_t k = 0; k < taps * masks; ++k) storage[0][k] = (float)(k / taps + 1) / (float)taps;
    }
    spec->coefficients = storage[0];
    spec->row_coefficients = storage[1];
    spec->column_coefficients = storage[2];
    return 1;
}

/* image_write_through's writer: the whole source into the temporary file, flushed to disk. */
static int write_source_file(int fd, const char *path, void *context, char *error, size_t error_size)
{
    const char *source = context;
    size_t left = strlen(source);
    int status = IMAGE_OK;
    while (status == IMAGE_OK && left) {
        const ssize_t written = write(fd, source, left);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0)
            status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s",
                                written < 0 ? strerror(errno) : "nothing was written");
        else source += written, left -= (size_t)written;
    }
    if (status == IMAGE_OK && fsync(fd) != 0)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(errno));
    if (close(fd) != 0 && status == IMAGE_OK)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(errno));
    return status;
}

/* The source on stdout, or in the file of -o/--output, written as filter writes its OUT: through
 * a temporary file in the same folder renamed into place, so a failed write leaves no partial
 * file and an existing one untouched (exit 7 when it cannot be written). */
static int write_source(const char *path, const char *source)
{
    if (path) {
        char error[1024];
        if (image_write_through(path, write_source_file, (void *)source, error, sizeof error) == IMAGE_OK)
            return EXIT_OK_;
        fprintf(stderr, "clstencil gen: %s\n", error);
        return EXIT_OUTPUT;
    }
    if (fputs(source, stdout) == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "clstencil gen: cannot write the standard output: %s\n", strerror(errno));
        return EXIT_OUTPUT;
    }
    return EXIT_OK_;
}

int cmd_gen(int argc, char **argv)
{
    cls_spec spec;
    cls_spec_init(&spec);
    mask_texts texts = {NULL, NULL, NULL};
    char *body = NULL;
    unsigned simd = 32;
    const char *output = NULL, *v;
    cli_parser parser;
    cli_init(&parser, "clstencil gen", GEN_OPTIONS, sizeof GEN_OPTIONS / sizeof GEN_OPTIONS[0], argc, argv);
    for (int found; (found = cli_next(&parser, &v)) != CLI_END;) {
        if (found == CLI_HELP) {
            free(body);
            gen_usage(stdout);
            return EXIT_OK_;
        }
        if (found == CLI_POSITIONAL) fprintf(stderr, "clstencil gen: unexpected argument '%s' (gen takes options only)\n", v);
        if (found < 0) {
            free(body);
            return EXIT_USAGE;
        }
        const char *a = GEN_OPTIONS[found].name;
        if (parse_flag(a, &spec)) continue;
        if (strcmp(a, "--output") == 0) {
            output = v;
            continue;
        }
        cls_status status = CLS_OK;
        if (!parse_option(a, v, &spec, &texts, &body, &simd, &status)) {
            free(body);
            return EXIT_USAGE;
        }
        if (status != CLS_OK) {
            free(body);
            fprintf(stderr, "clstencil gen: %s %s: %s\n", a, v, cls_last_error());
            return EXIT_USAGE;
        }
    }
    float *storage[3] = {NULL, NULL, NULL}; /* coefficients, row, column */
    char *source = NULL;
    cls_status status = CLS_OK;
    int ready = make_masks(&spec, &texts, storage);
    if (ready && spec.body) { /* the body rules of user operators (cls_operator_user checks them) */
        cls_operator *op = NULL;
        status = cls_operator_user(spec.body, spec.mask_width ? spec.mask_width : 3,
                                   spec.mask_height ? spec.mask_height : 3, NULL, &op);
        cls_operator_release(op);
    }
    if (ready && status == CLS_OK) status = cls_generate_source(&spec, simd, &source);
    for (int k = 0; k < 3; ++k) free(storage[k]);
    free(body);
    if (!ready) return EXIT_USAGE;
    if (status != CLS_OK) return report_failure("gen", status);
    const int code = write_source(output, source);
    cls_free(source);
    return code;
}
