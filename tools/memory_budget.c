/* memory_budget.c — the memory `clstencil filter` may use (see memory_budget.h). */
#include "memory_budget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The library parses its environment's sizes the same way (core/byte_size.c), but that is
 * internal and the command uses the public API only. */
int memory_parse_size(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9') return 0;
    char *end;
    errno = 0;
    const unsigned long long value = strtoull(text, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, ++end;
    else if (*end == 'M' || *end == 'm') shift = 20, ++end;
    else if (*end == 'G' || *end == 'g') shift = 30, ++end;
    if (errno || *end || value > (UINT64_MAX >> shift)) return 0;
    *out = (uint64_t)value << shift;
    return 1;
}

/* The first number in FILE after KEY (KEY "" for the file's first word); 0 when absent. */
static int read_number(const char *file, const char *key, uint64_t *value)
{
    FILE *f = fopen(file, "r");
    if (!f) return 0;
    char line[256];
    int found = 0;
    const size_t length = strlen(key);
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, key, length) == 0) {
            unsigned long long number;
            found = sscanf(line + length, " %llu", &number) == 1;
            if (found) *value = number;
        }
    fclose(f);
    return found;
}

static uint64_t least(uint64_t a, uint64_t b) { return a < b ? a : b; }

uint64_t memory_available(const char **bad)
{
    *bad = NULL;
    const char *max = getenv("CLSTENCIL_MEMORY_MAX");
    uint64_t limit = UINT64_MAX, value, used;
    if (max && *max) {
        if (!memory_parse_size(max, &limit)) *bad = max, limit = 0;
        return limit;
    }
    if (read_number("/proc/meminfo", "MemAvailable:", &value)) limit = least(limit, value << 10);
    if (read_number("/sys/fs/cgroup/memory.max", "", &value) && read_number("/sys/fs/cgroup/memory.current", "", &used))
        limit = least(limit, value > used ? value - used : 0); /* "max" reads as no number: no limit */
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) limit = least(limit, (uint64_t)r.rlim_cur);
    if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY) limit = least(limit, (uint64_t)r.rlim_cur);
    return limit;
}

uint64_t memory_most_that_fit(uint64_t most, int (*fits)(uint64_t n, const void *context), const void *context)
{
    uint64_t low = 0, high = most;
    while (low < high) {
        const uint64_t n = low + (high - low + 1) / 2;
        if (fits(n, context)) low = n;
        else high = n - 1;
    }
    return low;
}

const char *memory_format(uint64_t bytes, char *text, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024 && unit < 4) value /= 1024, ++unit;
    snprintf(text, size, unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
    return text;
}
