/* embedded.h — files compiled into the library by cmake/embed.cmake: the OpenCL C templates of
 * cl-templates/ and the built-in device database of device-db/records/ and the shipped tuning results of
 * device-db/tuning/. */
#ifndef CLS_EMBEDDED_H
#define CLS_EMBEDDED_H

#include <stddef.h>

typedef struct cls_embedded_file {
    const char *name; /* file name without directory */
    const char *text; /* NUL-terminated contents */
} cls_embedded_file;

extern const cls_embedded_file cls_embedded_templates[];
extern const size_t cls_embedded_templates_count;
extern const cls_embedded_file cls_embedded_records[];
extern const size_t cls_embedded_records_count;
extern const cls_embedded_file cls_embedded_tuning[];
extern const size_t cls_embedded_tuning_count;

#endif
