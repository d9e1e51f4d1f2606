/* error.h — the calling thread's last error message, shared by every stage of the library. */
#ifndef CLS_ERROR_H
#define CLS_ERROR_H

#include "clstencil.h"

/* Records a formatted message for cls_last_error() and returns status (for `return cls_fail(...)`). */
cls_status cls_fail(cls_status status, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Clears the message (successful public calls leave the last error as it was). */
void cls_clear_error(void);

#endif
