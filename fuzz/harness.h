/* harness.h — what the libFuzzer harnesses share: the entry point's declaration, and a copy of
 * the input as a NUL-terminated string (the parsers take text). */
#ifndef CLS_FUZZ_HARNESS_H
#define CLS_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* DATA as a malloc'd string (embedded NULs end it early, as they would in a file read as text). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif
