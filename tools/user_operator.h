/* user_operator.h — operators whose body the command reads from a file (`--op user:FILE[,WxH]`,
 * `user:FILE,WxHxD`). */
#ifndef CLS_TOOLS_USER_OPERATOR_H
#define CLS_TOOLS_USER_OPERATOR_H

#include <clstencil.h>

/* The whole of an operator body's file (malloc'd), or NULL after a message: only a regular file
 * (not a FIFO or a device) of at most 1 MiB is read. */
char *user_operator_read_body(const char *path);
/* `FILE[,WxH]`: the body in FILE over a WxH window (3x3 by default), mask all ones. A file that
 * cannot be read, or a WxH that is neither a window nor part of a file's name, is reported and
 * sets *read_failed (a usage error); otherwise the library's status of the operator. */
cls_status user_operator_parse(const char *spec, cls_operator **out, int *read_failed);
/* An --op's operator: `user:...` as above (case-insensitive prefix), else cls_operator_parse's. */
cls_status command_operator_parse(const char *text, cls_operator **out, int *read_failed);

#endif
