/* strbuf.h — a growable, always NUL-terminated string buffer: the one way clstencil builds text.
 * A failed allocation latches the buffer into an error state; later appends are no-ops and
 * strbuf_failed() reports it, so callers check once at the end. */
#ifndef CLS_STRBUF_H
#define CLS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *data;
    size_t length, capacity;
    int failed;
} strbuf;

void strbuf_init(strbuf *buffer);
void strbuf_free(strbuf *buffer);
void strbuf_append(strbuf *buffer, const char *text);
void strbuf_append_n(strbuf *buffer, const char *text, size_t length);
void strbuf_printf(strbuf *buffer, const char *format, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(strbuf *buffer, const char *format, va_list args);
/* Appends `indent` levels of four spaces, then the formatted text. */
void strbuf_line(strbuf *buffer, int indent, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int strbuf_failed(const strbuf *buffer);
/* The text ("" when empty or failed); valid until the next append. */
const char *strbuf_text(const strbuf *buffer);
/* Hands the text over to the caller (free with free()); NULL if the buffer failed. */
char *strbuf_take(strbuf *buffer);

#endif
