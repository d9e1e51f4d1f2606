/* cmd_filter.c — `clstencil filter IN OUT --op OPERATOR...`: reads an image, filters every channel
 * plane through one device-side pipeline (filter_run.c) and writes the result. Checks the command
 * line, the operators and the output's format before any device work; every failure is a message
 * naming the file and the reason, and an exit code of its class (see filter_usage). */
#include "cli.h"
#include "commands.h"
#include "filter_run.h"
#include "image_io.h"
#include "memory_budget.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static void filter_usage(FILE *out)
{
    fprintf(out,
            "usage: clstencil filter IN OUT --op OPERATOR [--op ...] [-b | --border MODE] [--value V]\n"
            "                        [-d | --device SELECTOR] [-t | --type u8|u16|f32] [--build GOAL]\n"
            "                        [--compression none|lzw|deflate|zstd] [-v]\n"
            "       clstencil filter IN -o OUT --op OPERATOR ...\n"
            "Filters every channel of IN through the operators, in order, in one pipeline on an\n"
            "OpenCL device, and writes OUT. Images: .tif/.tiff (8/16-bit integer or 32-bit float,\n"
            "gray to RGBA), .pgm, .ppm, .pnm (binary), .pfm. OUT is replaced only when all went well.\n"
            "A multi-page TIFF is a stack: every page is filtered (2-D, page by page) and OUT, a\n"
            "TIFF, gets as many pages; pages of different sizes, channels or types are refused (6).\n"
            "A TIFF's ImageDescription (ImageJ, OME), resolution, ICC profile, Software and DateTime\n"
            "are carried to a TIFF OUT, page by page.\n"
            "  --op OPERATOR   convolve:WxH,c1,...,cN   any mask, row by row, not flipped (a\n"
            "                  correlate:WxH,c1,...,cN  correlation, as scipy's correlate)\n"
            "                  gaussian:SIZE[,SIGMA]    box:SIZE    laplace[:3|5]    atrous:D\n"
            "                  sobel:x|y|mag            scharr:x|y|mag[,SIZE]        tonemap[:SCALE]\n"
            "                  bilateral:SD,SR[,SIZE]   night (a-trous 1, 2, 4, 8, then tonemap)\n"
            "                  median:WIN[,SHAPE]       percentile:P,WIN[,SHAPE] (rank N*P/100)\n"
            "                  min:WIN[,SHAPE]          max:WIN[,SHAPE] (erode, dilate: the same)\n"
            "                  morphgradient:WIN[,SHAPE]  max - min in one pass; WIN is SIZE or WxH\n"
            "                                           (odd), SHAPE rect (default), cross or disk;\n"
            "                                           median and percentile: 1024 pixels at most\n"
            "                  dog:S1,S2[,SIZE]         difference of Gaussians, one kernel\n"
            "                  log:SIGMA[,SIZE]         Laplacian of Gaussian (SIZE default\n"
            "                  unsharp:SIGMA,AMOUNT[,SIZE]  2*int(4*SIGMA+0.5)+1, as scipy)\n"
            "                  user:FILE[,WxH]          an operator body (IN, MASK, FOR_WINDOW, OUT)\n"
            "                                           over a WxH window (default 3x3)\n"
            "  -b, --border MODE  undefined, clamp, mirror, mirror101, repeat, constant (default clamp)\n"
            "  --value V       the constant border's value (default 0)\n"
            "  -d, --device SEL  P:D, gpu, cpu, accelerator or a part of a name (default:\n"
            "                  CLSTENCIL_DEVICE, else a GPU, else an accelerator, else a CPU)\n"
            "  -t, --type T    the output's pixel type: u8, u16 or f32 (default: the input's)\n"
            "  --build GOAL    first-result (default): the specialized kernels where they are\n"
            "                  cached, else quick ones that build in about a second and compute\n"
            "                  the same sums; fastest-kernel: build (and cache) the specialized\n"
            "                  kernels, which can take a minute for large masks on a GPU\n"
            "  -o, --output OUT  the output (instead of the second argument)\n"
            "  --compression C   a TIFF OUT's compression: none, lzw, deflate or zstd (with a\n"
            "                  predictor); default: the input's (LZW when it is not one of these)\n"
            "  -v, --verbose   print the device, each stage's build and the times to stderr\n"
            "  -h, --help      this text\n"
            "Samples keep their stored scale (u8 0..255, u16 0..65535); stages in between compute in\n"
            "f32; integer outputs are rounded and saturated. tonemap and night map a u8 or u16\n"
            "image's scale to 0..1 and back when the output is u8 or u16 too; for an f32 output they\n"
            "expect values near 0..1: scale first (--op convolve:1x1,0.0039215686 for u8).\n"
            "exit codes: 0 success; 1 bad command line, unknown operator or bad parameters;\n"
            "  2 no OpenCL device; 3 OpenCL or build failure; 4 input missing or unreadable;\n"
            "  5 input corrupt or truncated; 6 input layout not supported; 7 output cannot be written,\n"
            "  or a resource limit: not enough memory (CLSTENCIL_MEMORY_MAX caps it), the file-size limit\n");
}

typedef struct filter_args {
    const char *input, *output;
    const char **op_texts;
    size_t op_count;
    int has_type;
    image_compression compression; /* --compression, or DEFAULT: the input's */
    filter_plan plan;
} filter_args;

/* A command-line error: the message, a pointer to --help, exit code 1. */
static int bad_usage(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "clstencil filter: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, " (clstencil filter --help)\n");
    va_end(args);
    return EXIT_USAGE;
}

/* filter's options; the flags (no value) come last. */
static const cli_option FILTER_OPTIONS[] = {
    {"--op", 0, "an operator such as gaussian:5 or sobel:mag (clstencil filter --help lists them)"},
    {"--border", 'b', "undefined, clamp, mirror, mirror101, repeat or constant"},
    {"--value", 0, "a finite number"},
    {"--device", 'd', "P:D, gpu, cpu, accelerator or a part of a name"},
    {"--type", 't', "u8, u16 or f32"},
    {"--build", 0, "first-result or fastest-kernel"},
    {"--output", 'o', "a file (instead of OUT)"},
    {"--compression", 0, "none, lzw, deflate or zstd"},
    {"--verbose", 'v', NULL},
};
enum { OPT_OP, OPT_BORDER, OPT_VALUE, OPT_DEVICE, OPT_TYPE, OPT_BUILD, OPT_OUTPUT, OPT_COMPRESSION, OPT_VERBOSE };

/* One option with its value into ARGS; -1 to go on, else the exit code. */
static int parse_option(const cli_parser *parser, int option, const char *v, filter_args *args)
{
    cls_status status = CLS_OK;
    switch (option) {
    case OPT_OP: args->op_texts[args->op_count++] = v; break; /* room for argc entries */
    case OPT_BORDER: status = cls_border_parse(v, &args->plan.border); break;
    case OPT_VALUE: {
        char *end;
        errno = 0;
        args->plan.border_value = strtof(v, &end);
        if (end == v || *end || errno || !isfinite(args->plan.border_value))
            return bad_usage("--value wants a finite number, not '%s'", v);
        break;
    }
    case OPT_DEVICE: note_device_option(args->plan.device = v); break;
    case OPT_BUILD:
        if (strcmp(v, "first-result") && strcmp(v, "fastest-kernel"))
            return bad_usage("--build wants first-result or fastest-kernel, not '%s'", v);
        args->plan.build_goal = strcmp(v, "first-result") == 0 ? CLS_BUILD_FIRST_RESULT : CLS_BUILD_FASTEST_KERNEL;
        break;
    case OPT_OUTPUT:
        if (args->output) return bad_usage("two outputs: '%s' and '%s'", args->output, v);
        args->output = v;
        break;
    case OPT_COMPRESSION:
        if (!image_compression_parse(v, &args->compression))
            return bad_usage("--compression wants none, lzw, deflate or zstd, not '%s'", v);
        if (!image_compression_available(args->compression))
            return bad_usage("--compression %s: this libtiff cannot write it", v);
        break;
    case OPT_VERBOSE: args->plan.verbose = 1; break;
    default:
        status = cls_pixel_type_parse(v, &args->plan.output_type);
        args->has_type = 1;
    }
    if (status == CLS_OK) return -1;
    fprintf(stderr, "clstencil filter: %s %s: %s\n", parser->options[option].name, v, cls_last_error());
    return EXIT_USAGE;
}

/* Parses the command line into ARGS; returns -1 to go on, else the exit code. IN and OUT come
 * in that order anywhere among the options; -o OUT replaces the second. */
static int parse_args(int argc, char **argv, filter_args *args)
{
    const char *positional[2];
    int npositional = 0;
    args->plan.border = CLS_BORDER_CLAMP;
    args->plan.build_goal = CLS_BUILD_FIRST_RESULT;
    cli_parser parser;
    cli_init(&parser, "clstencil filter", FILTER_OPTIONS, sizeof FILTER_OPTIONS / sizeof FILTER_OPTIONS[0], argc,
             argv);
    const char *v;
    for (int found; (found = cli_next(&parser, &v)) != CLI_END;) {
        if (found == CLI_HELP) {
            filter_usage(stdout);
            return EXIT_OK_;
        }
        if (found == CLI_ERROR) return EXIT_USAGE;
        if (found == CLI_POSITIONAL) {
            if (npositional == 2 || (npositional == 1 && args->output))
                return bad_usage("unexpected argument '%s' (IN and OUT are given)", v);
            positional[npositional++] = v;
            continue;
        }
        const int code = parse_option(&parser, found, v, args);
        if (code >= 0) return code;
    }
    if (npositional == 2 && args->output) return bad_usage("two outputs: '%s' and '%s'", positional[1], args->output);
    if (npositional == 2) args->output = positional[1];
    if (npositional == 0) return bad_usage(args->output ? "IN is missing" : "IN and OUT are missing");
    if (!args->output) return bad_usage("OUT is missing");
    if (args->op_count == 0) return bad_usage("at least one --op OPERATOR is needed");
    args->input = positional[0];
    return -1;
}

/* The most a body file may hold before the library's own limit on bodies is checked. */
#define BODY_FILE_MAX (1 << 20)

/* The whole of a text file (malloc'd), or NULL after a message. Only a regular file (not a FIFO
 * or a device) of at most BODY_FILE_MAX bytes is read. */
static char *read_body(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat info;
    const char *problem = NULL;
    int error = fd < 0 ? errno : fstat(fd, &info) != 0 ? errno : 0;
    if (!error && S_ISDIR(info.st_mode)) error = EISDIR;
    else if (!error && !S_ISREG(info.st_mode)) problem = "not a regular file";
    else if (!error && info.st_size > BODY_FILE_MAX) problem = "larger than 1 MiB (an operator body is at most 64 KiB)";
    char *text = !error && !problem ? malloc((size_t)info.st_size + 1) : NULL;
    size_t size = 0;
    if (!error && !problem && !text) error = ENOMEM;
    while (text && !error && size < (size_t)info.st_size) {
        const ssize_t got = read(fd, text + size, (size_t)info.st_size - size);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) error = errno;
        if (got <= 0) break;
        size += (size_t)got;
    }
    if (fd >= 0) close(fd);
    if (error || problem) {
        fprintf(stderr, "clstencil filter: cannot read the operator body %s: %s\n", path,
                problem ? problem : strerror(error));
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* `user:FILE[,WxH]`: the body in FILE over a WxH window (3x3 by default), mask all ones. */
static cls_status parse_user(const char *spec, cls_operator **out, int *read_failed)
{
    char *path = strdup(spec);
    if (!path) return CLS_ERR_OUT_OF_MEMORY;
    unsigned width = 3, height = 3;
    char *comma = strrchr(path, ',');
    struct stat info;
    if (comma && parse_size(comma + 1, &width, &height)) *comma = '\0';
    else width = height = 3; /* a comma that belongs to the file name; sscanf may have written */
    if (comma && *comma && stat(path, &info) != 0) { /* neither FILE,WxH nor a file named so */
        char excerpt[256];
        printable_excerpt(comma + 1, excerpt, sizeof excerpt);
        fprintf(stderr, "clstencil filter: --op user:%s: '%s' is not a window WxH (odd sides, 1 to 63), "
                        "and no file is named %s\n", spec, excerpt, path);
        free(path);
        *read_failed = 1;
        return CLS_ERR_INVALID_ARGUMENT;
    }
    char *body = read_body(path);
    cls_status status = CLS_ERR_IO;
    *read_failed = !body;
    if (body) status = cls_operator_user(body, width, height, NULL, out);
    free(body);
    free(path);
    return status;
}

/* Parses every --op; fills OPS (op NULL for night). */
static int parse_ops(const filter_args *args, filter_op *ops)
{
    int stages = (int)args->op_count;
    for (size_t i = 0; i < args->op_count; ++i) stages += strcasecmp(args->op_texts[i], "night") == 0 ? 4 : 0;
    if (args->plan.border == CLS_BORDER_UNDEFINED && stages > 1)
        return bad_usage("--border undefined leaves each stage's border pixels unwritten, and the next stage "
                         "would read them: use it with a single one-stage --op, or choose another border");
    for (size_t i = 0; i < args->op_count; ++i) {
        const char *text = args->op_texts[i];
        ops[i].text = text;
        if (strcasecmp(text, "night") == 0) continue;
        int read_failed = 0;
        cls_status status = strncasecmp(text, "user:", 5) == 0 ? parse_user(text + 5, &ops[i].op, &read_failed)
                                                               : cls_operator_parse(text, &ops[i].op);
        if (read_failed) return EXIT_USAGE;
        if (status != CLS_OK) {
            fprintf(stderr, "clstencil filter: --op %s: %s\n", text, cls_last_error());
            return status == CLS_ERR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_;
        }
    }
    return EXIT_OK_;
}

/* The output's format from its extension (as image_write decides), or UNKNOWN. */
static image_format output_format(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash)) return IMAGE_FORMAT_UNKNOWN;
    static const struct { const char *ext; image_format format; } table[] = {
        {"tif", IMAGE_FORMAT_TIFF}, {"tiff", IMAGE_FORMAT_TIFF}, {"pgm", IMAGE_FORMAT_PGM},
        {"ppm", IMAGE_FORMAT_PPM},  {"pnm", IMAGE_FORMAT_PNM},   {"pfm", IMAGE_FORMAT_PFM},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (strcasecmp(dot + 1, table[i].ext) == 0) return table[i].format;
    return IMAGE_FORMAT_UNKNOWN;
}

/* Whether OUT has a known format (exit 1 if not); with IMAGE, also whether that format can hold
 * it (exit 1) and whether OUT's folder exists (exit 7), so no device work is wasted. */
static int check_output(const char *path, const cls_host_image *image)
{
    char error[512];
    image_format format = output_format(path);
    if (format == IMAGE_FORMAT_UNKNOWN) {
        fprintf(stderr, "clstencil filter: %s: unknown output format (the extension must be .tif, .tiff, "
                        ".pgm, .ppm, .pnm or .pfm)\n", path);
        return EXIT_USAGE;
    }
    if (format == IMAGE_FORMAT_TIFF && !image_has_tiff()) {
        fprintf(stderr, "clstencil filter: %s: this clstencil was built without TIFF support\n", path);
        return EXIT_USAGE;
    }
    if (!image) return EXIT_OK_;
    if (format != IMAGE_FORMAT_TIFF && image_pnm_check(format, path, image, error, sizeof error) != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: %s; choose another type (--type) or format\n", error);
        return EXIT_USAGE;
    }
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    struct stat st;
    const char *problem = !folder                   ? "out of memory"
                          : stat(folder, &st) != 0  ? "its folder does not exist"
                          : !S_ISDIR(st.st_mode)    ? "its folder is not a folder"
                                                    : NULL;
    if (problem) fprintf(stderr, "clstencil filter: %s: cannot be written: %s\n", path, problem);
    free(folder);
    return problem ? EXIT_OUTPUT : EXIT_OK_;
}

/* Whether IN and OUT name the same file (compared by device and inode, so links and other
 * spellings count): exit 1, since writing OUT would replace the input. */
static int check_not_input(const char *input, const char *output)
{
    struct stat in, out;
    if (stat(input, &in) != 0 || stat(output, &out) != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino)
        return EXIT_OK_;
    fprintf(stderr, "clstencil filter: %s and %s are the same file: writing the result would replace the "
                    "input; choose another OUT\n", input, output);
    return EXIT_USAGE;
}

/* The memory budget of one run: what the process may use, and the output's pixel type. */
static struct {
    uint64_t available;
    int has_type;
    cls_pixel_type output_type;
} budget;

/* image_alloc's check for the input: the input and the output on the host must fit the budget
 * (the device's copies are checked once the device is known, in filter_run). */
static int check_memory(size_t width, size_t height, size_t channels, cls_pixel_type type, const char *path,
                        char *error, size_t error_size)
{
    const uint64_t pixels = (uint64_t)width * height * channels;
    const uint64_t need = pixels * (image_sample_bytes(type) + image_sample_bytes(budget.has_type ? budget.output_type : type));
    if (need <= budget.available) return IMAGE_OK;
    char needed[32], available[32];
    return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path,
                      "a %zu x %zu image of %zu channel%s needs %s of memory for itself and the output, but "
                      "only %s is available (CLSTENCIL_MEMORY_MAX, else the system's available memory)",
                      width, height, channels, channels == 1 ? "" : "s", memory_format(need, needed, sizeof needed),
                      memory_format(budget.available, available, sizeof available));
}

/* The exit code of an image_read failure. */
static int input_exit_code(int image_status)
{
    switch (image_status) {
    case IMAGE_ERR_MISSING:
    case IMAGE_ERR_UNREADABLE: return EXIT_INPUT_MISSING;
    case IMAGE_ERR_CORRUPT: return EXIT_INPUT_CORRUPT;
    case IMAGE_ERR_RESOURCE: return EXIT_OUTPUT;
    default: return EXIT_INPUT_UNSUPPORTED;
    }
}

int cmd_filter(int argc, char **argv)
{
    if (argc < 2) {
        filter_usage(stderr);
        return EXIT_USAGE;
    }
    filter_args args = {0};
    filter_op *ops = NULL;
    cls_host_image in = {0}, out = {0}, shape;
    char error[1024];
    int code, status;
    if (!(args.op_texts = calloc((size_t)argc, sizeof *args.op_texts)) ||
        !(ops = calloc((size_t)argc, sizeof *ops))) {
        fprintf(stderr, "clstencil filter: out of memory\n");
        code = EXIT_FAILURE_;
        goto done;
    }
    if ((code = parse_args(argc, argv, &args)) >= 0) goto done;
    if ((code = check_output(args.output, NULL)) != EXIT_OK_) goto done;
    if ((code = check_not_input(args.input, args.output)) != EXIT_OK_) goto done;
    if ((code = parse_ops(&args, ops)) != EXIT_OK_) goto done;
    const char *bad_max = NULL;
    budget.available = memory_available(&bad_max);
    if (bad_max) {
        char excerpt[256];
        printable_excerpt(bad_max, excerpt, sizeof excerpt);
        code = bad_usage("CLSTENCIL_MEMORY_MAX='%s' is not a size (bytes, or a number with K, M or G)", excerpt);
        goto done;
    }
    budget.has_type = args.has_type;
    budget.output_type = args.plan.output_type;
    args.plan.memory_available = budget.available;
    image_set_alloc_check(check_memory);

    double start = wall_ms();
    if ((status = image_read(args.input, &in, error, sizeof error)) != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: %s (%s)\n", error, image_error_class_name(status));
        code = input_exit_code(status);
        goto done;
    }
    const double read_ms = wall_ms() - start;
    if (!args.has_type) args.plan.output_type = in.type;
    shape = in;
    shape.type = args.plan.output_type;
    if ((code = check_output(args.output, &shape)) != EXIT_OK_) goto done;
    image_set_alloc_check(NULL); /* counted with the input */
    if ((status = image_alloc_pages(&out, in.width, in.height, in.channels, in.pages, args.plan.output_type,
                                    args.output, error, sizeof error)) != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: %s\n", error);
        code = EXIT_OUTPUT;
        goto done;
    }
    /* The input's tags (and compression) go to the output; --compression overrides. */
    out.meta = in.meta;
    in.meta = NULL;
    if (args.compression != IMAGE_COMPRESSION_DEFAULT) {
        if (!out.meta && !(out.meta = calloc(1, sizeof *out.meta))) {
            fprintf(stderr, "clstencil filter: out of memory\n");
            code = EXIT_OUTPUT;
            goto done;
        }
        out.meta->compression = args.compression;
    }

    args.plan.ops = ops;
    args.plan.op_count = args.op_count;
    if ((code = filter_run(&args.plan, &in, &out)) != EXIT_OK_) goto done;

    start = wall_ms();
    if ((status = image_write(args.output, &out, error, sizeof error)) != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: %s (%s)\n", error, image_error_class_name(status));
        code = EXIT_OUTPUT;
    } else if (args.plan.verbose) {
        fprintf(stderr, "files:     read %.1f ms, written %.1f ms\n", read_ms, wall_ms() - start);
    }
done:
    for (size_t i = 0; ops && i < args.op_count; ++i)
        if (ops[i].op) cls_operator_release(ops[i].op);
    free(ops);
    free(args.op_texts);
    image_free(&in);
    image_free(&out);
    return code;
}
