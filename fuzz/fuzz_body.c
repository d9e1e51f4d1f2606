/* fuzz_body.c — the operator-body checker on arbitrary text: the first byte picks the window
 * (odd sides 1 to 63), the rest is the body. An accepted body also makes a user operator. */
#include "body_check.h"
#include "generator.h"
#include "harness.h"

#include <assert.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const unsigned width = 1 + 2 * (data[0] % 32), height = 1 + 2 * ((data[0] / 32) % 8);
    char *body = fuzz_text(data + 1, size - 1);
    if (cls_body_check(body, width, height) == CLS_OK) {
        cls_operator *op = NULL;
        assert(cls_operator_user(body, width, height, NULL, &op) == CLS_OK);
        cls_operator_release(op);
    } else {
        assert(cls_last_error()[0]);
    }
    free(body);
    return 0;
}
