/* cmd_cache.c — `clstencil cache`: where the binary cache is and what it holds; `cache clear`
 * empties it; `cache bench` measures cold builds against warm loads from the cache. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int show(void)
{
    cls_cache_status status = {CLS_CACHE_STATUS_INIT};
    cls_status result = cls_cache_query(&status);
    if (result != CLS_OK) return report_failure("cache", result);
    const char *mode = getenv("CLSTENCIL_CACHE");
    const int off = mode && (!strcasecmp(mode, "off") || !strcmp(mode, "0") || !strcasecmp(mode, "no") ||
                             !strcasecmp(mode, "false"));
    printf("location   %s%s\n", status.directory,
           status.enabled ? "" : off ? " (disabled: CLSTENCIL_CACHE=off)" : " (not used: see the warning above)");
    printf("entries    %zu\n", status.entries);
    printf("size       %.1f MiB of %.1f MiB\n", (double)status.bytes / (1 << 20), (double)status.max_bytes / (1 << 20));
    printf("this run   %lu hits, %lu misses\n", status.hits, status.misses);
    return EXIT_OK_;
}

static int clear(void)
{
    size_t removed = 0;
    cls_status result = cls_cache_clear(&removed);
    if (result != CLS_OK) return report_failure("cache clear", result);
    printf("removed %zu files\n", removed);
    return EXIT_OK_;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

enum { BENCH_KERNELS = 12 };

/* Builds the representative kernels in a fresh context; times[k] gets each build's time. */
static int build_all(double times[BENCH_KERNELS], int *from_cache)
{
    static const unsigned sizes[] = {3, 5, 9, 13};
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_CONSTANT};
    static const cls_partition partitions[] = {CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP, CLS_PARTITION_NAIVE};
    cls_context *context = NULL;
    cls_status status = cls_context_create(NULL, &context);
    if (status != CLS_OK) return report_failure("cache bench", status);
    float mask[13 * 13];
    for (int k = 0; k < 13 * 13; ++k) mask[k] = (float)(k % 7 + 1) / 64.0f;
    *from_cache = 0;
    for (int k = 0; k < BENCH_KERNELS; ++k) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = sizes[k % 4];
        spec.coefficients = mask;
        spec.bake_coefficients = k % 2;
        spec.border = borders[k % 3];
        spec.partition = partitions[(k / 4) % 3];
        cls_filter *filter = NULL;
        status = cls_filter_create(context, &spec, &filter);
        if (status != CLS_OK) {
            cls_context_release(context);
            return report_failure("cache bench", status);
        }
        cls_build_info info = {CLS_BUILD_INFO_INIT};
        cls_filter_build_info(filter, &info);
        times[k] = info.build_milliseconds;
        *from_cache += info.from_disk_cache;
        cls_filter_release(filter);
    }
    cls_context_release(context);
    return EXIT_OK_;
}

/* Cold: built from source with every cache empty. Warm: a second start, binaries from the
 * clstencil cache. The drivers' own caches (NVIDIA's JIT cache, PoCL's kernel cache) start
 * empty in the same temporary folder and act as they would on a second start; set
 * CUDA_CACHE_DISABLE=1 or POCL_KERNEL_CACHE=0 to measure the clstencil cache alone. */
static int bench(void)
{
    char folder[] = "/tmp/clstencil-cache-bench-XXXXXX", path[64];
    if (!mkdtemp(folder)) {
        perror("clstencil cache bench: mkdtemp");
        return EXIT_FAILURE_;
    }
    snprintf(path, sizeof path, "%s/cuda", folder);
    setenv("CUDA_CACHE_PATH", path, 1);
    snprintf(path, sizeof path, "%s/pocl", folder);
    setenv("POCL_CACHE_DIR", path, 1);
    snprintf(path, sizeof path, "%s/clstencil", folder);
    setenv("CLSTENCIL_CACHE_DIR", path, 1);
    double cold[BENCH_KERNELS], warm[BENCH_KERNELS], ratio[BENCH_KERNELS];
    int hits = 0, code;
    setenv("CLSTENCIL_CACHE", "off", 1);
    code = build_all(cold, &hits);                               /* cold: built from source */
    setenv("CLSTENCIL_CACHE", "on", 1);
    if (code == EXIT_OK_) code = build_all(warm, &hits);         /* fills the cache */
    if (code == EXIT_OK_) code = build_all(warm, &hits);         /* warm: loaded from it */
    remove_folder(folder);
    if (code != EXIT_OK_) return code;
    if (hits != BENCH_KERNELS) {
        fprintf(stderr, "clstencil cache bench: only %d of %d warm builds came from the cache\n", hits, BENCH_KERNELS);
        return EXIT_FAILURE_;
    }
    const char *cuda = getenv("CUDA_CACHE_DISABLE"), *pocl = getenv("POCL_KERNEL_CACHE");
    printf("%d kernels (masks 3..13, clamp/mirror/constant, naive/isp-block/isp-warp, runtime/baked)\n", BENCH_KERNELS);
    printf("driver caches: %s\n", (cuda && strcmp(cuda, "1") == 0) || (pocl && strcmp(pocl, "0") == 0)
                                      ? "disabled (the clstencil cache alone)" : "on, starting empty");
    for (int k = 0; k < BENCH_KERNELS; ++k) ratio[k] = cold[k] / warm[k];
    double total_cold = 0, total_warm = 0;
    for (int k = 0; k < BENCH_KERNELS; ++k) total_cold += cold[k], total_warm += warm[k];
    printf("cold build  median %8.2f ms   total %9.1f ms\n", median(cold, BENCH_KERNELS), total_cold);
    printf("warm load   median %8.2f ms   total %9.1f ms\n", median(warm, BENCH_KERNELS), total_warm);
    printf("speed-up    median %8.1fx     total %9.1fx\n", median(ratio, BENCH_KERNELS), total_cold / total_warm);
    return EXIT_OK_;
}

int cmd_cache(int argc, char **argv)
{
    static const char usage[] = "usage: clstencil cache [clear | bench]\n"
                                "  (nothing)  where the binary cache is, its entries and size\n"
                                "  clear      remove every entry\n"
                                "  bench      time cold builds against warm loads from the cache\n";
    cli_parser parser;
    cli_init(&parser, "clstencil cache", NULL, 0, argc, argv);
    const char *value, *action = NULL;
    int found;
    while ((found = cli_next(&parser, &value)) != CLI_END) {
        if (found == CLI_HELP) {
            fputs(usage, stdout);
            return EXIT_OK_;
        }
        if (found == CLI_ERROR) return EXIT_USAGE;
        if (action || (strcmp(value, "clear") != 0 && strcmp(value, "bench") != 0)) {
            fprintf(stderr, "clstencil cache: unknown argument '%s' (clear or bench, or nothing)\n", value);
            return EXIT_USAGE;
        }
        action = value;
    }
    if (!action) return show();
    return strcmp(action, "clear") == 0 ? clear() : bench();
}
