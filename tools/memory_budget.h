/* memory_budget.h — how much memory `clstencil filter` may use, and its need for one image, so
 * that a huge image is refused with a message before anything is allocated (not OOM-killed). */
#ifndef CLS_TOOLS_MEMORY_BUDGET_H
#define CLS_TOOLS_MEMORY_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* The bytes this process may still use: CLSTENCIL_MEMORY_MAX when set (bytes, or a number with
 * K, M or G), else the least of MemAvailable (/proc/meminfo), the cgroup's memory.max minus its
 * memory.current, and RLIMIT_AS / RLIMIT_DATA. UINT64_MAX when nothing says. Sets *bad to the
 * text of an unusable CLSTENCIL_MEMORY_MAX (then the limit is 0), else NULL. */
uint64_t memory_available(const char **bad);
/* Parses "123", "64K", "512M", "8G"; 0 when TEXT is not such a size. */
int memory_parse_size(const char *text, uint64_t *out);
/* "1.5 GiB", "300 MiB", "12 KiB" or "17 B" into TEXT. */
const char *memory_format(uint64_t bytes, char *text, size_t size);
/* The most pieces N (rows of a strip or band, slices of a slab), at most MOST, for which FITS(N,
 * CONTEXT) holds, where it holds for fewer whenever it holds for N; 0 when not one does. */
uint64_t memory_most_that_fit(uint64_t most, int (*fits)(uint64_t n, const void *context), const void *context);

#endif
