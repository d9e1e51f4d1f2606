/* cmd_gen.c — `clstencil gen`: prints the OpenCL C source generated for a stencil spec. No
 * device is needed; the SIMD width for isp-warp comes from --simd. */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gen_usage(FILE *out)
{
    fprintf(out,
            "usage: clstencil gen [--mask WxH] [--coefficients c1,c2,...] [--bake]\n"
            "                     [--border MODE] [--value V] [--partition P] [--wg WxH]\n"
            "                     [--type T | --in-type T --out-type T] [--simd N]\n"
            "  --mask WxH           odd mask sizes 1..%d (default 3x3)\n"
            "  --coefficients LIST  W*H comma-separated values, row by row (default: a box mask)\n"
            "  --bake               coefficients as literals in the source (default: __constant buffer)\n"
            "  --border MODE        undefined, clamp, mirror, mirror101, repeat, constant (and aliases)\n"
            "  --value V            the constant border value (default 0)\n"
            "  --partition P        naive, isp-block, isp-warp, auto (default auto)\n"
            "  --wg WxH             work-group shape (default auto)\n"
            "  --type T             pixel type of input and output: f32, u8, u16 (default f32)\n"
            "  --simd N             SIMD width for isp-warp (default 32)\n"
            "  --body FILE          a user-written operator body (IN, MASK, FOR_WINDOW, OUT)\n"
            "  --rows N             output rows per work-item: 1, 2, 4 or 8 (default 1)\n",
            CLS_MAX_MASK);
}

static float *parse_coefficients(const char *text, size_t expected)
{
    float *values = malloc(expected * sizeof *values);
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
        fprintf(stderr, "clstencil gen: --coefficients needs %zu comma-separated numbers\n", expected);
        free(values);
        return NULL;
    }
    return values;
}

/* The whole of a text file (malloc'd), or NULL after a message. */
static char *read_text(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "clstencil gen: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    size_t got;
    while (text && (got = fread(text + size, 1, capacity - size - 1, file)) > 0) {
        size += got;
        if (capacity - size < 2) {
            char *grown = realloc(text, capacity *= 2);
            if (!grown) free(text);
            text = grown;
        }
    }
    fclose(file);
    if (text) text[size] = '\0';
    return text;
}

static int option_value(int argc, char **argv, int *i, const char **value)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "clstencil gen: %s needs a value\n", argv[*i]);
        return 0;
    }
    *value = argv[++*i];
    return 1;
}

int cmd_gen(int argc, char **argv)
{
    cls_spec spec;
    cls_spec_init(&spec);
    const char *coefficients_text = NULL;
    char *body = NULL;
    unsigned simd = 32;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = NULL;
        cls_status status = CLS_OK;
        if (strcmp(a, "--help") == 0) {
            gen_usage(stdout);
            return EXIT_OK_;
        } else if (strcmp(a, "--bake") == 0) {
            spec.bake_coefficients = 1;
            continue;
        }
        if (!option_value(argc, argv, &i, &v)) return EXIT_USAGE;
        if (strcmp(a, "--mask") == 0) {
            if (!parse_size(v, &spec.mask_width, &spec.mask_height)) {
                fprintf(stderr, "clstencil gen: --mask wants WxH, not '%s'\n", v);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--wg") == 0) {
            if (!parse_size(v, &spec.group_width, &spec.group_height)) {
                fprintf(stderr, "clstencil gen: --wg wants WxH, not '%s'\n", v);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--coefficients") == 0) coefficients_text = v;
        else if (strcmp(a, "--border") == 0) status = cls_border_parse(v, &spec.border);
        else if (strcmp(a, "--value") == 0) spec.border_value = strtof(v, NULL);
        else if (strcmp(a, "--partition") == 0) status = cls_partition_parse(v, &spec.partition);
        else if (strcmp(a, "--type") == 0) {
            status = cls_pixel_type_parse(v, &spec.input_type);
            spec.output_type = spec.input_type;
        } else if (strcmp(a, "--in-type") == 0) status = cls_pixel_type_parse(v, &spec.input_type);
        else if (strcmp(a, "--out-type") == 0) status = cls_pixel_type_parse(v, &spec.output_type);
        else if (strcmp(a, "--simd") == 0) simd = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--rows") == 0) spec.rows_per_item = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--body") == 0) {
            free(body);
            if (!(body = read_text(v))) return EXIT_USAGE;
            spec.body = body;
        }
        else {
            fprintf(stderr, "clstencil gen: unknown option '%s'\n", a);
            gen_usage(stderr);
            return EXIT_USAGE;
        }
        if (status != CLS_OK) return report_failure("gen", status);
    }
    const size_t taps = (size_t)spec.mask_width * spec.mask_height;
    float *coefficients = NULL;
    if (spec.mask_width <= CLS_MAX_MASK && spec.mask_height <= CLS_MAX_MASK) {
        if (coefficients_text) coefficients = parse_coefficients(coefficients_text, taps);
        else if ((coefficients = malloc(taps * sizeof *coefficients)))
            for (size_t k = 0; k < taps; ++k) coefficients[k] = 1.0f / (float)taps;
        if (!coefficients) return EXIT_USAGE;
    }
    spec.coefficients = coefficients;
    char *source = NULL;
    cls_status status = cls_generate_source(&spec, simd, &source);
    free(coefficients);
    free(body);
    if (status != CLS_OK) return report_failure("gen", status);
    fputs(source, stdout);
    cls_free(source);
    return EXIT_OK_;
}
