/* van_herk_internal.h — what the files of the van Herk/Gil-Werman passes share (internal):
 * van_herk.c plans every pass and writes the row and column passes and the tile kernel,
 * van_herk_strips.c the strip walker (a window of several rows and columns on GPUs),
 * van_herk_lanes.c the lanes kernel (any window up to 31 wide on CPU runtimes), each with
 * van_herk_signature.c's signature and van_herk.c's helpers; fused_stages.c (two stages in one
 * kernel) uses both. */
#ifndef CLS_VAN_HERK_INTERNAL_H
#define CLS_VAN_HERK_INTERNAL_H

#include "strbuf.h"
#include "van_herk.h"

#include <stddef.h>

/* The kernel's signature up to its opening brace (the arguments cls_van_herk_source lists, the
 * source's too where L combines; L may be NULL), with reqd_work_group_size(GROUP, 1, 1) unless
 * GROUP is 0. */
void van_herk_append_signature(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l, unsigned group);
/* The value the output pixel at (X, Y) is written as, the extreme VALUE, or where L combines the
 * source pixel there (SOURCE(x, y), which the kernel's header defines) minus it or the reverse:
 * in BUF (SIZE bytes). */
const char *van_herk_result(char *buf, size_t size, const cls_van_herk_launch *l, const char *value, const char *x,
                            const char *y);

/* The helpers every kernel of the family uses: fold (an index of the axis, any, into the image by
 * the border mode), inside_both (constant mode) and pixel (one input pixel as a float, the
 * constant outside the image). */
void van_herk_append_helpers(strbuf *out, const cls_spec *stage);

/* The strip walker's work-group and strip (group_width, group_height, tile_width, tile_height of
 * *LAUNCH) for a WIDTH x HEIGHT window. */
void van_herk_strip_launch(unsigned width, unsigned height, cls_van_herk_launch *launch);
/* The strip walker's kernel over STAGE's window, launched as L says. */
void van_herk_append_strip_walker(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l);
/* The lanes kernel over STAGE's window (van_herk_lanes.c), launched as L says. */
void van_herk_append_lanes(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l);

#endif
