/* text_file.h — data files (device overlay, tuning results) as text (internal): reading a whole
 * file, and finding a section's line for error messages. */
#ifndef CLS_TEXT_FILE_H
#define CLS_TEXT_FILE_H

#include "clstencil.h"

/* The file's contents, NUL-terminated (free with free()). NULL with *status CLS_ERR_IO, naming
 * the path and `what` ("the tuning file"), when it cannot be opened or read; NULL with *status
 * CLS_OK when it does not exist and missing_is_empty is set. */
char *cls_read_text_file(const char *path, const char *what, int missing_is_empty, cls_status *status);

/* The line (1-based) of the INI section header [section] in text; 0 when there is none. */
int cls_ini_section_line(const char *text, const char *section);

#endif
