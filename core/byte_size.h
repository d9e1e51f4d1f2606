/* byte_size.h — sizes in environment variables: a whole number of bytes, or one with K, M or G
 * (powers of 1024), as CLSTENCIL_CACHE_MAX and CLSTENCIL_FFT_CHUNK_MAX take them. */
#ifndef CLS_BYTE_SIZE_H
#define CLS_BYTE_SIZE_H

#include <stdint.h>

/* TEXT as a size into *bytes; 0 (and *bytes untouched) when it is not one or overflows. */
int cls_byte_size_parse(const char *text, uint64_t *bytes);

#endif
