/* body_check.h — the rules a user-written operator body must follow before it is pasted into a
 * kernel (internal). The body is C code run once per output pixel; the generated kernel around
 * it owns some names, and some mistakes compile yet give wrong pixels, so they are refused
 * here with a message naming the rule. */
#ifndef CLS_BODY_CHECK_H
#define CLS_BODY_CHECK_H

#include "clstencil.h"

#define CLS_BODY_MAX_BYTES 65536 /* longer bodies are refused (compilers recurse on long expressions) */
#define CLS_BODY_MAX_DEPTH 32    /* nesting of (), [] and {} */
#define CLS_BODY_MAX_UNARY 16    /* operators in a row without an operand between them */

/* Checks BODY for a window of WIDTH x HEIGHT (odd sides). The rules:
 * - at most CLS_BODY_MAX_BYTES bytes, brackets balanced and nested at most CLS_BODY_MAX_DEPTH
 *   deep, at most CLS_BODY_MAX_UNARY operators in a row, no NUL or other control bytes;
 * - OUT is assigned (=, +=, ...) outside comments and strings;
 * - no #define or #undef of the names below or of IN, OUT, MASK, FOR_WINDOW, and no #include;
 * - no return or goto (the output would not be written);
 * - the kernel's own variables (input, output, mask, pitches, offsets, roi, ...) are not named:
 *   pixels are read through IN and the mask through MASK;
 * - x, y, width, height and sum (which OUT names) may be read but are not declared, and x, y,
 *   width and height are not assigned;
 * - IN(dx, dy) with integer literals stays inside the window (|dx| <= WIDTH/2, |dy| <= HEIGHT/2).
 * Returns CLS_OK, or CLS_ERR_INVALID_ARGUMENT with the rule and the body's line in
 * cls_last_error(). */
cls_status cls_body_check(const char *body, unsigned width, unsigned height);

#endif
