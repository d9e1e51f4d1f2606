/* cmd_filter.c — `clstencil filter IN OUT --op OPERATOR...` and `filter IN... -o DIR`: the command
 * line, the operators and the output's format checked before any device work, then one image
 * through filter_image.c (or the bands of filter_stream.c) or a batch through filter_batch.c.
 * Every failure is a message naming the file and the reason, and an exit code of its class (see
 * filter_usage). */
#include "cli.h"
#include "commands.h"
#include "filter_batch.h"
#include "filter_image.h"
#include "filter_steps.h"
#include "filter_run.h"
#include "filter_stream.h"
#include "filter_volume.h"
#include "image_io.h"
#include "memory_budget.h"
#include "std_streams.h"
#include "user_operator.h"

#include <errno.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The formats --format names (a detached header, .mhd or .nhdr, is read but not written). */
#define OUTPUT_FORMATS "tif, tiff, pgm, ppm, pnm, pfm, mha or nrrd"

static void filter_usage(FILE *out)
{
    fprintf(out,
            "usage: clstencil filter IN OUT --op OPERATOR [--op ...] [-b | --border MODE] [--value V]\n"
            "                        [-d | --device SELECTOR] [-t | --type u8|u16|i16|f16|f32|f64] [--build GOAL]\n"
            "                        [--method auto|direct|fft]\n"
            "                        [--compression none|lzw|deflate|zstd] [--max-device-memory SIZE] [-v]\n"
            "       clstencil filter IN -o OUT --op OPERATOR ...\n"
            "       clstencil filter IN... -o DIR [--format EXT] --op OPERATOR ...\n"
            "Filters every channel of IN through the operators, in order (or as their names say),\n"
            "in one pipeline on an\n"
            "OpenCL device, and writes OUT. Images: .tif/.tiff (8/16-bit unsigned, 16-bit signed,\n"
            "16-bit (f16) or 32-bit float, gray to RGBA; 64-bit float read as f32 with a note),\n"
            ".pgm, .ppm, .pnm (binary), .pfm; volumes .mha and .nrrd (read also .mhd, .nhdr). OUT is\n"
            "replaced only when all went well (its permissions kept; a link's target replaced).\n"
            "A multi-page TIFF is a stack: every page is filtered (2-D, page by page) and OUT, a\n"
            "TIFF, gets as many pages; pages of different sizes, channels or types are refused (6).\n"
            "A volume's operator (median3d:3, ...) takes the pages as slices: one volume, or one per\n"
            "channel and frame of an ImageJ hyperstack or OME-TIFF (axes their descriptions give).\n"
            "A TIFF's ImageDescription (ImageJ, OME), resolution, ICC profile, Software and DateTime\n"
            "are carried to a TIFF OUT, page by page.\n"
            "IN - reads the image from standard input (its format from its first bytes); OUT -\n"
            "writes it to standard output in --format's format (default: IN's), e.g.\n"
            "  producer | clstencil filter - - --format pgm --op gaussian:5 | consumer\n"
            "A batch (-o DIR where DIR is an existing folder or ends in /, or -o with 3 inputs or more;\n"
            "a batch's missing folder is exit 7): one context and one pipeline\n"
            "for all (another only for an image whose pixel type needs other stage types); each\n"
            "result is DIR/ the input's file name (its extension replaced with --format's),\n"
            "written as OUT is.\n"
            "An output that would replace an input or another output is refused before any work. A\n"
            "failed image is reported and the batch goes on; the exit code is the first failure's,\n"
            "after a summary line. A progress line (count, rate, ETA) on a terminal; -v: a line\n"
            "per image.\n"
            "  --op OPERATOR   correlate:WxH,c1,...,cN  any mask, row by row, as written\n"
            "                  convolve:WxH,c1,...,cN   the mask flipped first (a convolution)\n"
            "                  gaussian:SIZE[,SIGMA]    box:SIZE    laplace[:3|5]    atrous:D\n"
            "                  sobel:x|y|mag            scharr:x|y|mag[,SIZE]        tonemap[:SCALE]\n"
            "                  bilateral:SD,SR[,SIZE]   night (a-trous 1, 2, 4, 8, then tonemap)\n"
            "                  median:FP                percentile:P,FP (rank N*P/100)\n"
            "                  min:FP, erode:FP         max:FP\n"
            "                  dilate:FP                max over the footprint reflected (grey\n"
            "                                           dilation; max for rect, cross and disk)\n"
            "                  morphgradient:FP         dilation - erosion in one pass\n"
            "                  opening:FP, closing:FP   erosion then dilation, or the reverse\n"
            "                  tophat:FP, blackhat:FP   input - opening, closing - input\n"
            "                                           FP: WIN[,SHAPE] or mask:FILE; WIN is SIZE or\n"
            "                                           WxH (odd; the last four: up to 31), SHAPE\n"
            "                                           rect (default), cross or disk; FILE draws\n"
            "                                           the footprint, a line of 0s and 1s per row;\n"
            "                                           median and percentile: 1024 pixels at most\n"
            "                  dog:S1,S2[,SIZE]         difference of Gaussians, one kernel\n"
            "                  log:SIGMA[,SIZE]         Laplacian of Gaussian (SIZE default\n"
            "                  unsharp:SIGMA,AMOUNT[,SIZE]  2*int(4*SIGMA+0.5)+1, as scipy)\n"
            "                  gaussian_d:SIGMA,OX,OY[,SIZE]  the Gaussian's derivative, orders OX\n"
            "                                           along x and OY along y, 0 to 2 each\n"
            "                  user:FILE[,WxH]          an operator body (IN, MASK, FOR_WINDOW, OUT)\n"
            "                                           over a WxH window (default 3x3)\n"
            "                  user:FILE,WxHxD          a volume's body: IN(dx, dy, dz), ...\n"
            "  --op NAME=OPERATOR[@FROM]  a named step reading the image FROM: \"input\" (IN) or an\n"
            "                  earlier step's NAME (default: the step before; for the first, IN);\n"
            "                  steps without a name are stage1, stage2, ...\n"
            "  --input NAME=FILE  another input image, of IN's size, channels, pages and type, which\n"
            "                  steps read by NAME (not with a batch, strips or bands)\n"
            "  --combine NAME=EXPRESSION  an element-wise step: an OpenCL C expression of up to four\n"
            "                  images by name, pixel by pixel, e.g.\n"
            "                    --op blur=gaussian:5@input --combine 'sharp=input + 1.5 * (input - blur)'\n"
            "                    --op gx=sobel:x@input --op gy=sobel:y@input --combine 'm=hypot(gx, gy)'\n"
            "                  the last step writes OUT; every other step must be read by a later one\n"
            "  -b, --border MODE  undefined, clamp, mirror, mirror101, repeat, constant (default clamp);\n"
            "                  X,Y[,Z]: a mode per axis, along x (columns), y (rows) and z (slices)\n"
            "  --value V       the constant border's value (default 0; a note where no axis is constant)\n"
            "  -d, --device SEL  P:D, gpu, cpu, accelerator or a part of a name (default:\n"
            "                  CLSTENCIL_DEVICE, else a GPU, else an accelerator, else a CPU);\n"
            "                  several: a list (1:0,1:1) or gpus (every GPU), over which a batch\n"
            "                  spreads its images and a large image its bands, a context each\n"
            "  -t, --type T    the output's pixel type: u8, u16, i16, f16 (TIFF only), f32 or f64 (TIFF,\n"
            "                  .mha or .nrrd, not PGM/PPM/PFM; the last stage, a weighted sum, computed\n"
            "                  in double) (default: the input's)\n"
            "  --build GOAL    auto (one image's default): the specialized kernels where they are\n"
            "                  cached, else built now where the device record expects the build\n"
            "                  and run to take less than a quick kernel's run, else quick ones\n"
            "                  while the specialized ones build in the background and are cached\n"
            "                  for the next run (-v says which and why); first-result: the\n"
            "                  specialized kernels where cached, else quick ones that build in\n"
            "                  about a second and compute the same sums; fastest-kernel: build (and\n"
            "                  cache) the specialized kernels, which can take a minute for large\n"
            "                  masks on a GPU; tiered (a batch's default): the quick kernels first,\n"
            "                  the specialized ones built in the background and swapped in between\n"
            "                  images; CLSTENCIL_BUILD_GOAL sets the default\n"
            "  --method M      how weighted sums are computed: direct (the window's multiply-adds),\n"
            "                  fft (tiles transformed with VkFFT: the cost no longer grows with the\n"
            "                  mask; f32 within 1e-5 x sum|mask| x max|input| of direct) or auto\n"
            "                  (default: fft for large masks where the device's record says so)\n"
            "  -o, --output OUT  the output (instead of the second argument), or a batch's folder\n"
            "  --format EXT    a batch's output format, or that of OUT -:\n"
            "                  " OUTPUT_FORMATS " (default: each input's own;\n"
            "                  .mhd and .nhdr are read, not written)\n"
            "  --compression C   a TIFF OUT's compression: none, lzw, deflate or zstd (with a\n"
            "                  predictor); default: the input's (LZW when it is not one of these)\n"
            "  --max-device-memory SIZE  the device memory the run may use (bytes, or a number with K,\n"
            "                  M or G; default: the device's); an image that needs more is filtered\n"
            "                  in horizontal strips, with the same result\n"
            "An image larger than the memory the run may use (CLSTENCIL_MEMORY_MAX, else the\n"
            "available memory), or of 16 MiB of pixels or more, is read, filtered and written a band\n"
            "of rows at a time (TIFF, PGM, PPM, PFM), with the same result.\n"
            "  -v, --verbose   print the device, each stage's build and the times to stderr\n"
            "  -h, --help      this text\n"
            "Samples keep their stored scale (u8 0..255, u16 0..65535, i16 -32768..32767); stages in\n"
            "between compute in f32; integer outputs are rounded and saturated, f16 outputs rounded\n"
            "(beyond 65504: infinity; f16 images are TIFFs). tonemap and night map\n"
            "an integer image's scale (0..255, 0..65535, 0..32767) to 0..1 and back when the output\n"
            "is an integer type too; for an f32 output they\n"
            "expect values near 0..1: scale first (--op convolve:1x1,0.0039215686 for u8).\n"
            "exit codes: 0 success; 1 bad command line, unknown operator or bad parameters;\n"
            "  2 no OpenCL device; 3 OpenCL or build failure; 4 input missing or unreadable;\n"
            "  5 input corrupt or truncated; 6 input layout not supported; 7 output cannot be written,\n"
            "  or a resource limit: not enough memory (CLSTENCIL_MEMORY_MAX caps it) or the file-size\n"
            "  limit that ulimit sets.\n");
}

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
    {"--combine", 0, "NAME=EXPRESSION, e.g. 'sharp=input + 1.5 * (input - blur)'"},
    {"--input", 0, "NAME=FILE: another input image, of IN's size and type"},
    {"--border", 'b', "undefined, clamp, mirror, mirror101, repeat or constant, or X,Y[,Z] (a mode per axis)"},
    {"--value", 0, "a finite number"},
    {"--device", 'd', "P:D, gpu, cpu, accelerator, a part of a name, a list P:D,P:D or gpus"},
    {"--type", 't', "u8, u16, i16, f16, f32 or f64"},
    {"--build", 0, "auto, first-result, fastest-kernel or tiered"},
    {"--method", 0, "auto, direct or fft"},
    {"--output", 'o', "a file (instead of OUT)"},
    {"--compression", 0, "none, lzw, deflate or zstd"},
    {"--format", 0, OUTPUT_FORMATS},
    {"--max-device-memory", 0, "a size: bytes, or a number with K, M or G"},
    {"--verbose", 'v', NULL},
};
enum { OPT_OP, OPT_COMBINE, OPT_INPUT, OPT_BORDER, OPT_VALUE, OPT_DEVICE, OPT_TYPE, OPT_BUILD, OPT_METHOD, OPT_OUTPUT, OPT_COMPRESSION, OPT_FORMAT,
       OPT_MAX_DEVICE_MEMORY, OPT_VERBOSE };

/* The build goal of a name (--build, CLSTENCIL_BUILD_GOAL); 0 when NAME is none. */
static int parse_build_goal(const char *name, cls_build_goal *goal)
{
    static const struct { const char *name; cls_build_goal goal; } goals[] = {
        {"auto", CLS_BUILD_AUTO}, {"first-result", CLS_BUILD_FIRST_RESULT},
        {"fastest-kernel", CLS_BUILD_FASTEST_KERNEL}, {"tiered", CLS_BUILD_TIERED}};
    for (size_t i = 0; i < sizeof goals / sizeof goals[0]; ++i)
        if (strcmp(name, goals[i].name) == 0) {
            *goal = goals[i].goal;
            return 1;
        }
    return 0;
}

/* One option with its value into ARGS; -1 to go on, else the exit code. */
static int parse_option(const cli_parser *parser, int option, const char *v, filter_args *args)
{
    cls_status status = CLS_OK;
    switch (option) {
    case OPT_OP: args->op_texts[args->op_count++] = v; break; /* room for argc entries */
    case OPT_COMBINE:
        args->op_combines[args->op_count] = 1;
        args->op_texts[args->op_count++] = v;
        break;
    case OPT_INPUT: {
        filter_step_text step;
        char error[512];
        if (!filter_step_split_combine(v, &step, error, sizeof error) || !step.body_length)
            return bad_usage("--input wants NAME=FILE, not '%s'", v);
        args->input_texts[args->input_text_count++] = v;
        break;
    }
    case OPT_BORDER: {
        cls_border axes[3];
        if ((status = cls_border_parse_axes(v, axes)) != CLS_OK) break;
        args->plan.border = axes[0], args->plan.border_y = axes[1], args->plan.border_z = axes[2];
        for (int axis = 1; axis < 3; ++axis)
            if (axes[axis] != CLS_BORDER_SAME && (axes[axis] == CLS_BORDER_UNDEFINED) != (axes[0] == CLS_BORDER_UNDEFINED))
                return bad_usage("--border %s: the undefined border takes every axis or none", v);
        break;
    }
    case OPT_VALUE: {
        char *end;
        errno = 0;
        args->plan.border_value = strtof(v, &end);
        if (end == v || *end || errno || !isfinite(args->plan.border_value))
            return bad_usage("--value wants a finite number, not '%s'", v);
        args->has_value = 1;
        break;
    }
    case OPT_DEVICE: note_device_option(args->plan.device = v); break;
    case OPT_BUILD:
        if (!parse_build_goal(v, &args->plan.build_goal))
            return bad_usage("--build wants auto, first-result, fastest-kernel or tiered, not '%s'", v);
        args->has_build = 1;
        break;
    case OPT_METHOD: status = cls_method_parse(v, &args->plan.method); break;
    case OPT_FORMAT: {
        char name[16];
        if (strlen(v) > 8 || strchr(v, '/') || (snprintf(name, sizeof name, "x.%s", v), image_format_of(name)) ==
                                                     IMAGE_FORMAT_UNKNOWN)
            return bad_usage("--format wants " OUTPUT_FORMATS ", not '%s'", v);
        if (image_format_detached(name))
            return bad_usage("--format %s: a header whose voxels lie in another file is read, not written: give mha "
                             "or nrrd", v);
        args->format = v;
        break;
    }
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
    case OPT_MAX_DEVICE_MEMORY:
        if (!memory_parse_size(v, &args->plan.max_device_memory) || !args->plan.max_device_memory)
            return bad_usage("--max-device-memory wants a size above 0 (bytes, or a number with K, M or G), not '%s'", v);
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

/* IN or OUT "-": standard input or output, neither a terminal; --format names OUT -'s format,
 * else the input's does. Returns -1 to go on, else the exit code. */
static int check_streams(filter_args *args)
{
    const int to_stdout = strcmp(args->output, "-") == 0, from_stdin = strcmp(args->input, "-") == 0;
    if (args->format && !to_stdout)
        return bad_usage("--format names a batch's output format (with -o DIR) or that of OUT - (standard output)");
    if (from_stdin && isatty(STDIN_FILENO))
        return bad_usage("IN is - but standard input is a terminal: redirect an image into it");
    if (to_stdout && isatty(STDOUT_FILENO))
        return bad_usage("OUT is - but standard output is a terminal: redirect it to a file or a pipe");
    if (to_stdout && !args->format && !from_stdin) {
        const char *dot = strrchr(args->input, '.');
        char name[16];
        if (!dot || strlen(dot) > 8 || (snprintf(name, sizeof name, "x%s", dot), image_format_of(name)) == IMAGE_FORMAT_UNKNOWN)
            return bad_usage("OUT is - and %s's extension names no image format: give --format", args->input);
        if (image_format_detached(name))
            return bad_usage("OUT is - and %s's format, a header whose voxels lie in another file, is read, not "
                             "written: give --format", args->input);
        args->format = dot + 1;
    }
    return -1;
}

/* Parses the command line into ARGS; returns -1 to go on, else the exit code. IN and OUT come
 * in that order anywhere among the options; -o OUT replaces the second. */
static int parse_args(int argc, char **argv, filter_args *args)
{
    const char **positional = args->inputs;
    int npositional = 0;
    args->plan.border = CLS_BORDER_CLAMP;
    args->plan.border_y = args->plan.border_z = CLS_BORDER_SAME;
    args->plan.build_goal = CLS_BUILD_AUTO;
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
            positional[npositional++] = v; /* room for argc entries */
            continue;
        }
        const int code = parse_option(&parser, found, v, args);
        if (code >= 0) return code;
    }
    const filter_plan *plan = &args->plan;
    if (args->has_value && plan->border != CLS_BORDER_CONSTANT && plan->border_y != CLS_BORDER_CONSTANT &&
        plan->border_z != CLS_BORDER_CONSTANT)
        fprintf(stderr, "clstencil filter: note: --value is read by the constant border only, which no axis has\n");
    /* -o naming a folder (one that exists, or a name ending in /), or with three inputs or
     * more: a batch (IN OUT -o OUT2 stays an error of two outputs) */
    struct stat info;
    const size_t out_length = args->output ? strlen(args->output) : 0;
    args->batch = args->output && npositional >= 1 &&
                  (npositional >= 3 || (out_length && args->output[out_length - 1] == '/') ||
                   (stat(args->output, &info) == 0 && S_ISDIR(info.st_mode)));
    if (args->batch) {
        args->input_count = (size_t)npositional;
        for (int i = 0; i < npositional; ++i)
            if (strcmp(positional[i], "-") == 0)
                return bad_usage("standard input (-) holds one image: not part of a batch");
        if (args->op_count == 0) return bad_usage("at least one --op OPERATOR is needed");
        if (args->input_text_count) return bad_usage("--input goes with one image IN, not with a batch");
        if (!args->has_build) args->plan.build_goal = CLS_BUILD_TIERED;
        args->plan.batch = 1;
        return -1;
    }
    if (npositional > 2)
        return bad_usage("unexpected argument '%s' (IN and OUT are given; several inputs take -o DIR)",
                         positional[2]);
    if (npositional == 2 && args->output)
        return bad_usage("two outputs: '%s' and '%s' (a batch's -o names an existing folder or ends in /)",
                         positional[1], args->output);
    if (npositional == 2) args->output = positional[1];
    if (npositional == 0) return bad_usage(args->output ? "IN is missing" : "IN and OUT are missing");
    if (!args->output) return bad_usage("OUT is missing");
    if (args->op_count == 0) return bad_usage("at least one --op OPERATOR is needed");
    args->input = positional[0];
    if (args->compression != IMAGE_COMPRESSION_DEFAULT && strcmp(args->output, "-") != 0 &&
        image_format_of(args->output) != IMAGE_FORMAT_TIFF)
        fprintf(stderr, "clstencil filter: note: --compression applies to a TIFF OUT only, not %s\n", args->output);
    return check_streams(args);
}

/* The default goal of every build: CLSTENCIL_BUILD_GOAL where set (the Python package's variable
 * too), else auto for one image (in one piece or in bands) and tiered for a batch; --build overrides it. */
static int default_build_goal(filter_args *args)
{
    const char *named = getenv("CLSTENCIL_BUILD_GOAL");
    if (args->has_build || !named || !*named) return -1;
    if (!parse_build_goal(named, &args->plan.build_goal)) {
        char excerpt[256];
        printable_excerpt(named, excerpt, sizeof excerpt);
        return bad_usage("CLSTENCIL_BUILD_GOAL wants auto, first-result, fastest-kernel or tiered, not '%s'", excerpt);
    }
    args->has_build = 1;
    return -1;
}

/* Parses every --op and --combine; fills OPS (op NULL for night, expression set for --combine). */
static int parse_ops(const filter_args *args, filter_op *ops)
{
    int stages = (int)args->op_count;
    int night = 0;
    for (size_t i = 0; i < args->op_count; ++i) night |= strcasecmp(args->op_texts[i], "night") == 0;
    stages += 4 * night;
    const filter_plan *plan = &args->plan;
    if (night && ((plan->border_y != CLS_BORDER_SAME && plan->border_y != plan->border) ||
                  (plan->border_z != CLS_BORDER_SAME && plan->border_z != plan->border)))
        return bad_usage("night takes one border mode for every axis, not --border with a mode per axis");
    if (args->plan.border == CLS_BORDER_UNDEFINED && stages > 1)
        return bad_usage("--border undefined leaves each stage's border pixels unwritten, and the next stage "
                         "would read them: use it with a single one-stage --op, or choose another border");
    for (size_t i = 0; i < args->op_count; ++i) {
        const char *text = args->op_texts[i];
        filter_step_text step;
        char error[512];
        ops[i].text = text;
        if (args->op_combines[i] && !filter_step_split_combine(text, &step, error, sizeof error))
            return bad_usage("%s", error);
        if (!args->op_combines[i]) filter_step_split_op(text, &step);
        snprintf(ops[i].name, sizeof ops[i].name, "%s", step.name);
        /* the first step reads IN, not the --input image added after it */
        const int reads_in = i == 0 && !args->op_combines[i] && !step.from[0] && args->input_text_count;
        snprintf(ops[i].from, sizeof ops[i].from, "%s", reads_in ? "input" : step.from);
        char *body = strndup(step.body, step.body_length);
        if (!body) {
            fprintf(stderr, "clstencil filter: out of memory\n");
            return EXIT_FAILURE_;
        }
        if (args->op_combines[i]) {
            ops[i].expression = body;
            continue;
        }
        if (strcasecmp(body, "night") == 0) {
            free(body);
            if (step.name[0] || step.from[0]) return bad_usage("--op %s: night takes no NAME= or @FROM", text);
            if (i == 0 && args->input_text_count)
                return bad_usage("--op night reads the step before: as the first step, with --input, it has none "
                                 "(put a step reading IN before it)");
            continue;
        }
        int read_failed = 0;
        cls_status status = command_operator_parse(body, &ops[i].op, &read_failed);
        free(body);
        if (read_failed) return EXIT_USAGE;
        if (status != CLS_OK) {
            fprintf(stderr, "clstencil filter: --op %s: %s\n", text, cls_last_error());
            return status == CLS_ERR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_;
        }
    }
    /* Volumes' operators chain with volumes' operators only, step after step. */
    int volumes = 0;
    for (size_t i = 0; i < args->op_count; ++i) volumes += ops[i].op && cls_operator_spec(ops[i].op)->mask_depth;
    for (size_t i = 0; volumes && i < args->op_count; ++i)
        if (!ops[i].op || !cls_operator_spec(ops[i].op)->mask_depth || ops[i].name[0] || ops[i].from[0])
            return bad_usage("--op %s: a volume's operators chain with volumes' operators only, one after another "
                             "(no 2-D operator, night, --combine, NAME= or @FROM)", args->op_texts[i]);
    return EXIT_OK_;
}

/* Whether an input (IN or an --input FILE) and OUT name the same file (compared by device and
 * inode, so links and other spellings count): exit 1, since writing OUT would replace the input. */
static int check_not_input(const char *input, const char *output)
{
    struct stat in, out;
    if (stat(input, &in) != 0 || stat(output, &out) != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino)
        return EXIT_OK_;
    fprintf(stderr, "clstencil filter: %s and %s are the same file: writing the result would replace the "
                    "input; choose another OUT\n", input, output);
    return EXIT_USAGE;
}

/* check_not_input for IN and each --input NAME=FILE. */
static int check_inputs_not_output(const filter_args *args)
{
    int code = check_not_input(args->input, args->output);
    for (size_t k = 0; code == EXIT_OK_ && k < args->input_text_count; ++k)
        code = check_not_input(strchr(args->input_texts[k], '=') + 1, args->output);
    return code;
}

int cmd_filter(int argc, char **argv)
{
    if (argc < 2) {
        filter_usage(stderr);
        return EXIT_USAGE;
    }
    filter_args args = {0};
    filter_op *ops = NULL;
    char *spooled_input = NULL, *spooled_output = NULL; /* IN -, OUT -: temporary files */
    int code;
    if (!(args.op_texts = calloc((size_t)argc, sizeof *args.op_texts)) ||
        !(args.op_combines = calloc((size_t)argc, sizeof *args.op_combines)) ||
        !(args.input_texts = calloc((size_t)argc, sizeof *args.input_texts)) ||
        !(args.inputs = calloc((size_t)argc, sizeof *args.inputs)) || !(ops = calloc((size_t)argc, sizeof *ops))) {
        fprintf(stderr, "clstencil filter: out of memory\n");
        code = EXIT_FAILURE_;
        goto done;
    }
    if ((code = parse_args(argc, argv, &args)) >= 0 || (code = default_build_goal(&args)) >= 0) goto done;
    const int to_stdout = !args.batch && strcmp(args.output, "-") == 0;
    if (!args.batch && !to_stdout && (code = filter_check_output(args.output, NULL)) != EXIT_OK_) goto done;
    if (!args.batch && (code = check_inputs_not_output(&args)) != EXIT_OK_) goto done;
    if ((code = parse_ops(&args, ops)) != EXIT_OK_) goto done;
    if (filter_devices_named(args.plan.device)) {
        if ((code = filter_devices_resolve(args.plan.device, &args.devices)) != EXIT_OK_) goto done;
        args.plan.device = args.devices.selectors[0]; /* a small image's, not spread */
    }
    const char *bad_max = NULL;
    const uint64_t available = memory_available(&bad_max);
    if (bad_max) {
        char excerpt[256];
        printable_excerpt(bad_max, excerpt, sizeof excerpt);
        code = bad_usage("CLSTENCIL_MEMORY_MAX='%s' is not a size (bytes, or a number with K, M or G)", excerpt);
        goto done;
    }
    filter_budget_set(available, args.has_type, args.plan.output_type);
    args.plan.memory_available = available;
    args.plan.ops = ops;
    args.plan.op_count = args.op_count;
    const int volume = filter_plan_is_volume(&args.plan);
    if (volume && (args.batch || args.input_text_count || args.devices.count > 1)) {
        code = bad_usage("a volume's operator filters one file's pages as one volume, on one device: no batch, "
                         "--input or several devices");
        goto done;
    }
    if (args.batch) {
        code = filter_batch_run(&args);
        goto done;
    }
    image_times times = {0};
    const char *input = args.input, *output = args.output;
    if (strcmp(input, "-") == 0 && !(input = spooled_input = stdin_spool(&code))) goto done;
    if (to_stdout && !(output = spooled_output = stdout_spool(args.format ? args.format : strrchr(input, '.') + 1))) {
        code = EXIT_OUTPUT;
        goto done;
    }
    if (spooled_input) image_name_stream(spooled_input, "standard input");
    if (spooled_output) image_name_stream(spooled_output, "standard output");
    cls_host_image result = {0};
    const int overlapped = !volume && filter_stream_pays(&args, input, output); /* a large image: bands */
    code = overlapped ? FILTER_IN_BANDS : filter_read_and_filter(&args, NULL, input, output, &result, &times);
    const int in_bands = code == FILTER_IN_BANDS; /* larger than the memory: bands, a volume's slabs */
    if (in_bands)
        code = volume ? filter_volume_stream(&args, input, output, filter_budget_left())
                      : filter_stream_run(&args, input, output, filter_budget_left());
    char error[1024];
    if (code == EXIT_OK_ && !in_bands && (code = filter_write_result(output, &result, error, sizeof error, &times)) != EXIT_OK_)
        fprintf(stderr, "clstencil filter: %s\n", error);
    image_free(&result);
    if (code == EXIT_OK_ && spooled_output && stdout_copy(spooled_output) != 0) code = EXIT_OUTPUT;
    if (code == EXIT_OK_ && args.plan.verbose && !in_bands)
        fprintf(stderr, "files:     read %.1f ms, written %.1f ms\n", times.read_ms, times.write_ms);
done:
    if (spooled_input) unlink(spooled_input);
    if (spooled_output) unlink(spooled_output);
    free(spooled_input);
    free(spooled_output);
    for (size_t i = 0; ops && i < args.op_count; ++i) {
        if (ops[i].op) cls_operator_release(ops[i].op);
        free(ops[i].expression);
    }
    free(ops);
    free(args.op_texts);
    free(args.op_combines);
    free(args.input_texts);
    free(args.inputs);
    return code;
}
