/* byte_size.c — sizes in environment variables (see byte_size.h). */
#include "byte_size.h"

#include <errno.h>
#include <stdlib.h>

int cls_byte_size_parse(const char *text, uint64_t *bytes)
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
    *bytes = (uint64_t)value << shift;
    return 1;
}
