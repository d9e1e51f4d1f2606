/* main.c — the clstencil command: dispatches to the subcommands. A file-size limit (ulimit -f)
 * turns into a write error (exit 7) instead of SIGXFSZ; SIGINT, SIGTERM and SIGHUP remove a
 * half-written output before the process ends. */
#include "cli.h"
#include "commands.h"
#include "image_io.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static void end_on_signal(int signal_number)
{
    image_remove_partial_output();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static void install_signal_handlers(void)
{
    signal(SIGXFSZ, SIG_IGN); /* write() then fails with EFBIG, which the writers report */
    static const int ending[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof ending / sizeof ending[0]; ++i) {
        struct sigaction action = {0};
        action.sa_handler = end_on_signal;
        sigemptyset(&action.sa_mask);
        sigaction(ending[i], &action, NULL);
    }
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clstencil COMMAND [OPTIONS] [ARGUMENTS]\n"
            "       clstencil -h | --help | -V | --version\n"
            "\n"
            "commands:\n"
            "  devices [--all] [--json]   list OpenCL devices with their capability record,\n"
            "                             database match and fingerprint\n"
            "  gen [OPTIONS]              print the generated OpenCL C source of a stencil\n"
            "  bench --op OP [--op ...]   time operators on the device against a device copy\n"
            "  tune --op OP [--size WxH]  explore configurations; store the best for auto\n"
            "  cache [clear | bench]      show the binary cache, empty it, or time cold builds\n"
            "                             against warm loads\n"
            "  filter IN OUT --op OP...   filter an image (TIFF, PGM/PPM, PFM) through operators\n"
            "                             on the device\n"
            "  help [COMMAND]             this text, or a command's options\n"
            "  --version                  print the library's version and the OpenCL headers' version\n"
            "\n"
            "Every command takes -h/--help; options take their value as --name=value or --name value,\n"
            "long names may be abbreviated while unique, and -- ends the options. See clstencil(1).\n"
            "The device is chosen by --device (filter, bench, tune) or CLSTENCIL_DEVICE (P:D, gpu, cpu,\n"
            "accelerator or a name part); by default a GPU, else an accelerator, else a CPU.\n"
            "exit codes: 0 success, 1 bad command line, 2 no OpenCL device, 3 OpenCL or build failure;\n"
            "filter also: 4 input missing or unreadable, 5 input corrupt, 6 input layout not supported;\n"
            "7 output cannot be written (filter's OUT, gen's -o FILE, bench's and tune's --csv, --json\n"
            "and --svg files, checked before any timing) or, for filter, a resource limit (memory, file\n"
            "size) reached\n");
}

static int print_version(void)
{
    printf("clstencil %s\n", cls_version());
    printf("OpenCL headers: CL_TARGET_OPENCL_VERSION %d (OpenCL %d.%d)\n", CL_TARGET_OPENCL_VERSION,
           CL_TARGET_OPENCL_VERSION / 100, CL_TARGET_OPENCL_VERSION / 10 % 10);
    printf("TIFF support: %s\n", image_has_tiff() ? "yes (libtiff)" : "no (PGM, PPM and PFM only)");
    return EXIT_OK_;
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    int warns_about_cache; /* uses the binary cache: an unusable CLSTENCIL_CACHE is reported first */
} command;

static const command COMMANDS[] = {
    {"devices", cmd_devices, 0}, {"gen", cmd_gen, 0},     {"cache", cmd_cache, 1},
    {"bench", cmd_bench, 1},     {"tune", cmd_tune, 1},   {"filter", cmd_filter, 1},
};

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; ++i)
        if (strcmp(COMMANDS[i].name, name) == 0) return &COMMANDS[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "clstencil: unknown command '%s' (one of devices, gen, bench, tune, cache, filter)\n\n", name);
    usage(stderr);
    return EXIT_USAGE;
}

/* `clstencil help [COMMAND]`: this text, or the command's own --help. */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return EXIT_OK_;
    }
    const command *c = find_command(argv[1]);
    if (!c) return unknown_command(argv[1]);
    char *arguments[] = {argv[1], "--help", NULL};
    return c->run(2, arguments);
}

int main(int argc, char **argv)
{
    static const cli_option options[] = {{"--version", 'V', NULL}};
    cli_parser parser;
    /* The global options end at the command's name; the command parses the rest. */
    cli_init(&parser, "clstencil", options, 1, argc, argv);
    const char *value;
    int found;
    while ((found = cli_next(&parser, &value)) != CLI_POSITIONAL) {
        if (found == CLI_HELP) {
            usage(stdout);
            return EXIT_OK_;
        }
        if (found == 0) return print_version();
        if (found == CLI_END) {
            usage(stderr);
            return EXIT_USAGE;
        }
        return EXIT_USAGE; /* CLI_ERROR: said why */
    }
    const int first = cli_position(&parser); /* the command's name is argv[first] */
    argc -= first;
    argv += first;
    install_signal_handlers();
    if (strcmp(argv[0], "help") == 0) return help(argc, argv);
    const command *c = find_command(argv[0]);
    if (!c) return unknown_command(argv[0]);
    if (c->warns_about_cache) cache_warning(c->name);
    return c->run(argc, argv);
}
