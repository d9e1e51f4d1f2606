/* strbuf.c — growable string buffer (see strbuf.h). */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(strbuf *buffer) { memset(buffer, 0, sizeof *buffer); }

void strbuf_free(strbuf *buffer)
{
    free(buffer->data);
    strbuf_init(buffer);
}

static int reserve(strbuf *buffer, size_t extra)
{
    if (buffer->failed) return 0;
    size_t needed = buffer->length + extra + 1;
    if (needed <= buffer->capacity) return 1;
    size_t capacity = buffer->capacity ? buffer->capacity : 256;
    while (capacity < needed) capacity *= 2;
    char *data = realloc(buffer->data, capacity);
    if (!data) {
        buffer->failed = 1;
        return 0;
    }
    buffer->data = data;
    buffer->capacity = capacity;
    return 1;
}

void strbuf_append_n(strbuf *buffer, const char *text, size_t length)
{
    if (!reserve(buffer, length)) return;
    memcpy(buffer->data + buffer->length, text, length);
    buffer->length += length;
    buffer->data[buffer->length] = '\0';
}

void strbuf_append(strbuf *buffer, const char *text) { strbuf_append_n(buffer, text, strlen(text)); }

void strbuf_vprintf(strbuf *buffer, const char *format, va_list args)
{
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (length < 0) {
        buffer->failed = 1;
        return;
    }
    if (!reserve(buffer, (size_t)length)) return;
    vsnprintf(buffer->data + buffer->length, (size_t)length + 1, format, args);
    buffer->length += (size_t)length;
}

void strbuf_printf(strbuf *buffer, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    strbuf_vprintf(buffer, format, args);
    va_end(args);
}

void strbuf_line(strbuf *buffer, int indent, const char *format, ...)
{
    for (int i = 0; i < indent; ++i) strbuf_append_n(buffer, "    ", 4);
    va_list args;
    va_start(args, format);
    strbuf_vprintf(buffer, format, args);
    va_end(args);
    strbuf_append_n(buffer, "\n", 1);
}

int strbuf_failed(const strbuf *buffer) { return buffer->failed; }

const char *strbuf_text(const strbuf *buffer)
{
    return (buffer->data && !buffer->failed) ? buffer->data : "";
}

char *strbuf_take(strbuf *buffer)
{
    char *text = NULL;
    if (!buffer->failed) text = buffer->data ? buffer->data : calloc(1, 1);
    else free(buffer->data);
    strbuf_init(buffer);
    return text;
}
