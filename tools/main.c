/* main.c — the clstencil command: dispatches to the subcommands. A file-size limit (ulimit -f)
 * turns into a write error (exit 7) instead of SIGXFSZ; SIGINT, SIGTERM and SIGHUP remove a
 * half-written output before the process ends. */
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
            "usage: clstencil COMMAND [OPTIONS]\n"
            "\n"
            "commands:\n"
            "  devices [--all] [--json]   list OpenCL devices with their capability record,\n"
            "                             database match and fingerprint\n"
            "  gen [OPTIONS]              print the generated OpenCL C source of a stencil\n"
            "                             (clstencil gen --help for its options)\n"
            "  bench --op OP [--op ...]   time operators on the device against a device copy\n"
            "  tune --op OP [--size WxH]  explore configurations; store the best for auto\n"
            "  cache [clear | bench]      show the binary cache, empty it, or time cold builds\n"
            "                             against warm loads\n"
            "  filter IN OUT --op OP...   filter an image (TIFF, PGM/PPM, PFM) through operators\n"
            "                             on the device (clstencil filter --help for its options)\n"
            "  --version                  print the version\n"
            "  --help                     print this text\n"
            "\n"
            "The device is chosen by CLSTENCIL_DEVICE (P:D, gpu, cpu, accelerator or a name part);\n"
            "by default a GPU, else an accelerator, else a CPU.\n"
            "exit codes: 0 success, 1 bad command line, 2 no OpenCL device, 3 OpenCL or build failure;\n"
            "filter also: 4 input missing or unreadable, 5 input corrupt, 6 input layout not supported,\n"
            "7 output cannot be written or a resource limit (memory, file size) reached\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    install_signal_handlers();
    if (strcmp(command, "filter") == 0 || strcmp(command, "bench") == 0 || strcmp(command, "tune") == 0 ||
        strcmp(command, "cache") == 0)
        cache_warning(command);
    if (strcmp(command, "--help") == 0 || strcmp(command, "help") == 0) {
        usage(stdout);
        return EXIT_OK_;
    }
    if (strcmp(command, "--version") == 0) {
        printf("clstencil %s\n", cls_version());
        printf("TIFF support: %s\n", image_has_tiff() ? "yes (libtiff)" : "no (PGM, PPM and PFM only)");
        return EXIT_OK_;
    }
    if (strcmp(command, "devices") == 0) return cmd_devices(argc - 1, argv + 1);
    if (strcmp(command, "gen") == 0) return cmd_gen(argc - 1, argv + 1);
    if (strcmp(command, "cache") == 0) return cmd_cache(argc - 1, argv + 1);
    if (strcmp(command, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
    if (strcmp(command, "tune") == 0) return cmd_tune(argc - 1, argv + 1);
    if (strcmp(command, "filter") == 0) return cmd_filter(argc - 1, argv + 1);
    fprintf(stderr, "clstencil: unknown command '%s'\n\n", command);
    usage(stderr);
    return EXIT_USAGE;
}
