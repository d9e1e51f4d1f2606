/* pocl_binary.h — a PoCL program binary made private to the program loading it. */
#ifndef CLS_POCL_BINARY_H
#define CLS_POCL_BINARY_H

#include <stddef.h>

/* PoCL with its kernel cache off unpacks a binary into a directory named in the binary's header
 * and deletes that directory when the program is released, so programs loaded from one binary
 * in several processes at once delete each other's files ("Final linking of kernel failed",
 * "Can't get stat() on program.bc"). Renames that directory in `binary` to a fresh one. Returns
 * 1, or 0 where `binary` is not a PoCL binary built without PoCL's cache (then do not load it
 * while PoCL's cache is off: build from source). */
int cls_pocl_binary_make_private(unsigned char *binary, size_t size);

#endif
