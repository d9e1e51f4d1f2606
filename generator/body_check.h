/* body_check.h — the rules a user-written operator body must follow before it is pasted into a
 * kernel (internal). The body is C code run once per output pixel; the generated kernel around
 * it owns some names, and some mistakes compile yet crash or give wrong pixels, so they are
 * refused here with a message naming the rule. */
#ifndef CLS_BODY_CHECK_H
#define CLS_BODY_CHECK_H

#include "clstencil.h"

#define CLS_BODY_MAX_BYTES 65536 /* longer bodies are refused (compilers recurse on long expressions) */
#define CLS_BODY_MAX_DEPTH 32    /* nesting of (), [] and {} */
#define CLS_BODY_MAX_UNARY 16    /* operators in a row without an operand between them */
/* Private arrays per pixel: a work-item's stack on a CPU runtime (PoCL crashed at 64 KiB with
 * 128 work-items a group) and spilled local memory on a GPU; the largest rank filter's takes 3.8 KiB. */
#define CLS_BODY_MAX_PRIVATE_BYTES 16384
/* The most output rows per work-item a body runs with (its ROWS): beyond, a kernel streams. */
#define CLS_BODY_MAX_ROWS 8
/* The most adjacent outputs a body computes at once in lanes (value_t a vector of them); value_t
 * arrays count that many floats an element. */
#define CLS_BODY_MAX_LANES 8

/* Checks BODY for a window of WIDTH x HEIGHT (odd sides). The body runs in a function of its own
 * (emit_body.c), so any name it declares is its own and the kernel's are out of reach; the rules
 * catch what would still crash, read outside the window or give wrong pixels silently:
 * - at most CLS_BODY_MAX_BYTES bytes, brackets balanced and nested at most CLS_BODY_MAX_DEPTH
 *   deep, at most CLS_BODY_MAX_UNARY operators in a row, no NUL or other control bytes;
 * - OUT is assigned (=, +=, ...) outside comments and strings, or OUT_AT(k) is, not both (a body
 *   that writes OUT_AT computes the ROWS outputs of a column, (x, y + k) for k = 0 .. ROWS - 1);
 * - no name starting with cls_ or CLS_ (the generated code's), no declaration, #define or #undef
 *   of the macros (IN, OUT, MASK, FOR_WINDOW, MASK_W, ...), no #include;
 * - no return or goto (the output would not be written);
 * - IN(dx, dy) with integer literals stays inside the window (|dx| <= WIDTH/2, |dy| <= HEIGHT/2);
 * - arrays have sizes made of integer literals, MASK_W, MASK_H, HALF_W, HALF_H, ROWS (counted as
 *   CLS_BODY_MAX_ROWS) and the body's own object-like #defines (or an initializer list), and take at most
 *   CLS_BODY_MAX_PRIVATE_BYTES together.
 * Returns CLS_OK, or CLS_ERR_INVALID_ARGUMENT with the rule and the body's line in
 * cls_last_error(). */
cls_status cls_body_check(const char *body, unsigned width, unsigned height);
/* The same for a volume's body over WIDTH x HEIGHT x DEPTH: IN(dx, dy, dz) with literals inside
 * the window (|dz| <= DEPTH/2 too), MASK_D and HALF_D in array sizes, and OUT only (no OUT_AT). */
cls_status cls_body_check_volume(const char *body, unsigned width, unsigned height, unsigned depth);

/* Whether BODY (checked) writes a column of outputs through OUT_AT(k) rather than OUT. */
int cls_body_writes_rows(const char *body);
/* Whether BODY (checked) runs in lanes: it holds its pixel values in value_t (float, or in lanes a
 * vector of adjacent outputs' values, x to x + COLS - 1) and names none of the words that would
 * not compile or would mean something else with vectors (float, double, half, x, isnan, isinf,
 * isfinite, signbit, as_uint, as_int); its conditions (if, while) must not test values. 2: it
 * does, at any ROWS; 1: only at one row, where such words stand only in "#if ROWS > 1" sections
 * (up to their #else or #endif); 0: it does not. */
int cls_body_in_lanes(const char *body);
/* N (2, 4 or 8) where BODY (checked) has a form for a column of ROWS outputs in N lanes: a section
 * under "#if" or "#elif" testing LANES == N (value_t floatN there, its lanes' scalars named freely,
 * LANES being 1 outside lanes); 0 where it has none. */
int cls_body_row_lanes(const char *body);

#endif
