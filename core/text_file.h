/* text_file.h — data files (device overlay, tuning results) as text (internal): reading a whole
 * file, finding a section's line for error messages, strict WxH values, printable excerpts and
 * duplicate keys. */
#ifndef CLS_TEXT_FILE_H
#define CLS_TEXT_FILE_H

#include "clstencil.h"
#include "strbuf.h"

/* The file's contents, NUL-terminated (free with free()). NULL with *status CLS_ERR_IO, naming
 * the path and `what` ("the tuning file"), when it cannot be opened or read; NULL with *status
 * CLS_OK when it does not exist and missing_is_empty is set. */
char *cls_read_text_file(const char *path, const char *what, int missing_is_empty, cls_status *status);

/* The line (1-based) of the INI section header [section] in text; 0 when there is none. */
int cls_ini_section_line(const char *text, const char *section);

/* "WxH" with each side 1 to 2^20 in decimal digits only (no sign, no blanks); 0 otherwise. */
int cls_parse_pair(const char *text, unsigned *width, unsigned *height);
/* The same, or "WxHxD" (a volume); *depth 0 for "WxH". */
int cls_parse_size(const char *text, unsigned *width, unsigned *height, unsigned *depth);
/* TEXT cut to 48 characters, with bytes outside printable ASCII as \xNN, into OUT; returns OUT. */
const char *cls_printable(const char *text, char *out, size_t size);
/* Checks the lines of an INI text before inih reads it, since inih reports its own errors by
 * line but reads on, and a later refusal would then be told with the earlier line: every line
 * is blank, a comment (; or #), a [section] or a NAME = VALUE, and shorter than 200 characters
 * (inih's line buffer). CLS_OK, or CLS_ERR_PARSE with "LOCATION:LINE: reason". */
cls_status cls_ini_check_lines(const char *text, const char *location);
/* Records KEY of SECTION in SEEN; 1 when it was recorded before (a duplicate). */
int cls_ini_key_seen(strbuf *seen, const char *section, const char *key);

#endif
