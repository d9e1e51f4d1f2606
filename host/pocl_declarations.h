/* pocl_declarations.h — the OpenCL C builtins a source calls, declared for PoCL's front end
 * (internal). */
#ifndef CLS_POCL_DECLARATIONS_H
#define CLS_POCL_DECLARATIONS_H

#include "strbuf.h"

/* The build option that keeps PoCL from reading clang's declarations of every builtin. */
#define CLS_POCL_DECLARATIONS_OPTION "-D_OPENCL_H_"

typedef enum cls_pocl_declarations_mode {
    CLS_POCL_DECLARATIONS_OFF,   /* PoCL reads its whole header, as without this module */
    CLS_POCL_DECLARATIONS_ON,    /* a build declares what it calls, and builds whole where that fails */
    CLS_POCL_DECLARATIONS_CHECK, /* as on, but a build that fails only when reduced is an error */
} cls_pocl_declarations_mode;

/* CLSTENCIL_POCL_DECLARATIONS: off, check, else on. */
cls_pocl_declarations_mode cls_pocl_declarations_mode_get(void);

/* Appends to `out` the declarations `source` needs: PoCL's opencl-c.h (found beside the loaded
 * PoCL library) with only the declarations of functions that `source` names, every overload of
 * each, and the header's types, macros and conditions whole; then a #line directive, so that
 * `source` appended after it keeps its line numbers. Build the result with
 * CLS_POCL_DECLARATIONS_OPTION. Returns 0 (and appends nothing) where no PoCL library is loaded
 * or its headers are not in the form this relies on. Safe across threads. */
int cls_pocl_declarations(const char *source, strbuf *out);

#endif
