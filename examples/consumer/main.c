/* main.c — the smallest program against an installed clstencil: generates a kernel. */
#include <clstencil.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    static const float gaussian[9] = {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f,
                                      2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = gaussian;
    spec.border = CLS_BORDER_MIRROR;
    char *source = NULL;
    if (cls_generate_source(&spec, 0, &source) != CLS_OK) {
        fprintf(stderr, "%s\n", cls_last_error());
        return 1;
    }
    printf("clstencil %s generated %zu bytes of OpenCL C\n", cls_version(), strlen(source));
    cls_free(source);
    return 0;
}
