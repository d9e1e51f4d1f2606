/* register_cap.c — how NVIDIA's build takes a generated kernel's register cap
 * (cls_kernel_source.register_cap, from cls_kernel_register_cap): its OpenCL compiler ignores -cl-nv-maxrregcount (and rejects
 * "-cl-nv-maxrregcount N"), so the program's PTX gets a .maxnreg directive between the entry's
 * parameter list and its body and is built again from that binary (build.c). */
#include "build.h"

#include <stdio.h>
#include <string.h>

char *cls_ptx_with_maxnreg(const char *ptx, size_t size, const char *kernel_name, unsigned cap)
{
    strbuf text, out;
    strbuf_init(&text);
    strbuf_init(&out);
    strbuf_append_n(&text, ptx, strnlen(ptx, size));
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", kernel_name);
    const char *start = strstr(strbuf_text(&text), entry);
    const char *list_end = start ? strstr(start, "\n)\n") : NULL; /* the line that closes the parameters */
    if (list_end) {
        const size_t head = (size_t)(list_end - strbuf_text(&text)) + 3;
        strbuf_append_n(&out, strbuf_text(&text), head);
        strbuf_printf(&out, ".maxnreg %u\n", cap);
        strbuf_append(&out, strbuf_text(&text) + head);
    }
    char *patched = list_end && !strbuf_failed(&out) ? strbuf_take(&out) : NULL;
    strbuf_free(&text);
    strbuf_free(&out);
    return patched;
}
