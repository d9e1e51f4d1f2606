/* operator_internal.h — what the operator library's files share (internal): the storage of a
 * cls_operator and the helpers that build one. operators.c parses the weighted sums, the point
 * operators and the Gaussian family; morphology_operators.c the rank and morphology operators. */
#ifndef CLS_OPERATOR_INTERNAL_H
#define CLS_OPERATOR_INTERNAL_H

#include "clstencil.h"

struct cls_operator {
    cls_spec spec;
    float *mask;
    char *body;
    char name[128];
};

/* An operator with a width x height mask of zeros (literal coefficients up to 25x25 taps, the
 * buffer above) and the spec's defaults otherwise. */
cls_status cls_operator_new(unsigned width, unsigned height, cls_operator **out);
/* The same with a mask of depth slices (0: a 2-D mask; 1 or more: a volume's). */
cls_status cls_operator_new_volume(unsigned width, unsigned height, unsigned depth, cls_operator **out);
/* Literal coefficients up to 31 a side whatever the taps, for a mask of rank 1 by construction (a
 * Gaussian, a box, 2-D or 3-D): where the device separates it, its kernels hold W + H (+ D)
 * literals, and the buffer's loads slowed them (H200, f32 4096^2, a Gaussian 31x31 as the staged
 * single pass in 128-row strips: 136 us from the buffer, 94 from literals); where it runs as a 2-D
 * mask, literals past the unroll limit roll from a table in the source. */
void cls_operator_bake_rank1(cls_operator *op);
/* CLS_ERR_INVALID_ARGUMENT with the message "operator 'TEXT': WHY". */
cls_status cls_operator_refuse(const char *text, const char *why);
/* Whether WORD is a finite decimal number, all of it, into *VALUE: not hexadecimal, which strtod
 * reads too ("0x3" as 3, so that a window of "0x3" would pass for 3x3). */
int cls_operator_number(const char *word, double *value);
/* Whether value is a whole, odd window side from 1 to CLS_MAX_MASK. */
int cls_operator_odd_size(double value);

/* Whether NAME is a volume's named operator (volume_operators.c: gaussian3d, box3d), and its
 * parse from the COUNT numbers N after the colon. */
int cls_volume_operator(const char *name);
cls_status cls_volume_parse(const char *text, const char *name, int count, const double *n, cls_operator **out);
/* Whether NAME (lower case) is a rank or morphology operator, whose arguments end in a footprint. */
int cls_morphology_operator(const char *name);
/* scipy.ndimage's rank of a median (N/2) or of the PERCENT percentile (floor(N * P / 100), N - 1
 * for 100) among a footprint's N pixels. */
unsigned cls_footprint_rank(int median, double percent, size_t pixels);
/* Parses the rank or morphology operator NAME of TEXT; ARGUMENTS is the text after "NAME:" (NULL
 * when there is no colon). */
cls_status cls_morphology_parse(const char *text, const char *name, const char *arguments, cls_operator **out);
/* The rank or morphology operator NAME (percentile: of PERCENT) over FOOTPRINT (a centred, odd
 * window), named NAME:LABEL; TEXT names it in refusals. */
struct cls_footprint;
cls_status cls_morphology_build(const char *text, const char *name, double percent, const struct cls_footprint *footprint,
                                const char *label, cls_operator **out);

/* anchored_operators.c: the weighted sum NAME (correlate, convolve) of WIDTH x HEIGHT (x DEPTH;
 * 0: 2-D) weights of any sides with the output pixel at cell side/2 + origin along each axis
 * (ORIGIN x, y, z; NULL: 0), as a centred odd window; and the rank or morphology operator NAME
 * over the footprint CELLS (non-zero: inside) likewise, TEXT naming it in refusals. */
cls_status cls_weights_operator(const char *name, const float *weights, unsigned width, unsigned height, unsigned depth,
                                const int origin[3], cls_operator **out);
cls_status cls_footprint_operator(const char *text, const char *name, double percent, const unsigned char *cells,
                                  unsigned width, unsigned height, const int origin[3], cls_operator **out);

#endif
