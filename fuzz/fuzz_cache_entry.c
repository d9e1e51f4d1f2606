/* fuzz_cache_entry.c — the binary cache's entry reader on arbitrary bytes, as if they were the
 * entry file of a fixed key: an accepted entry's payload lies inside the bytes. */
#include "disk_cache.h"
#include "harness.h"

#include <assert.h>

#define FUZZ_KEY "0123456789abcdef-00112233445566778899aabbccddeeff"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const unsigned char *payload = NULL;
    size_t payload_size = 0;
    cls_build_info info;
    if (cls_disk_cache_parse_entry(data, size, FUZZ_KEY, &payload, &payload_size, &info))
        assert(payload > data && payload + payload_size == data + size && payload_size > 0);
    return 0;
}
