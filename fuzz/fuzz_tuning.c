/* fuzz_tuning.c — the tuning-file parser on arbitrary text: accepted sections hold valid
 * configurations; a refusal names the file and a line. */
#include "harness.h"
#include "tuning.h"

#include <assert.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    cls_tuning_table table = {0};
    if (cls_tuning_table_parse(&table, text, "fuzz.ini") == CLS_OK) {
        for (size_t i = 0; i < table.count; ++i)
            assert(table.entries[i].tuning.group_width > 0 && table.entries[i].tuning.group_height > 0);
    } else {
        assert(strncmp(cls_last_error(), "fuzz.ini:", 9) == 0);
    }
    cls_tuning_table_free(&table);
    free(text);
    return 0;
}
