/* fuzz_overlay.c — the device-database overlay parser (INI records) on arbitrary text: a
 * refusal always names the file and a line. */
#include "harness.h"
#include "overlay_parse.h"

#include <assert.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (cls_device_db_parse_overlay(text, "fuzz.ini") != CLS_OK) assert(strncmp(cls_last_error(), "fuzz.ini:", 9) == 0);
    free(text);
    return 0;
}
