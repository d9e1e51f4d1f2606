/* error.c — thread-local last-error text, status names, the library version and cls_free. */
#include "error.h"

#include "strbuf.h"

#include <stdarg.h>
#include <stdlib.h>

static _Thread_local strbuf last_error;

cls_status cls_fail(cls_status status, const char *format, ...)
{
    strbuf message;
    strbuf_init(&message);
    va_list args;
    va_start(args, format);
    strbuf_vprintf(&message, format, args);
    va_end(args);
    strbuf_free(&last_error);
    last_error = message;
    return status;
}

void cls_clear_error(void) { strbuf_free(&last_error); }

const char *cls_last_error(void)
{
    return strbuf_failed(&last_error) ? "out of memory while formatting the error message"
                                      : strbuf_text(&last_error);
}

const char *cls_status_name(cls_status status)
{
    switch (status) {
    case CLS_OK: return "CLS_OK";
    case CLS_ERR_INVALID_ARGUMENT: return "CLS_ERR_INVALID_ARGUMENT";
    case CLS_ERR_NO_PLATFORM: return "CLS_ERR_NO_PLATFORM";
    case CLS_ERR_NO_DEVICE: return "CLS_ERR_NO_DEVICE";
    case CLS_ERR_OPENCL: return "CLS_ERR_OPENCL";
    case CLS_ERR_BUILD: return "CLS_ERR_BUILD";
    case CLS_ERR_OUT_OF_MEMORY: return "CLS_ERR_OUT_OF_MEMORY";
    case CLS_ERR_IO: return "CLS_ERR_IO";
    case CLS_ERR_PARSE: return "CLS_ERR_PARSE";
    case CLS_ERR_UNSUPPORTED: return "CLS_ERR_UNSUPPORTED";
    }
    return "CLS_ERR_UNKNOWN";
}

const char *cls_version(void) { return CLS_VERSION_STRING; }

void cls_free(void *memory) { free(memory); }
