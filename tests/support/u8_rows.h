/* u8_rows.h — deterministic u8 pixels inside larger rows, for the tests of pitches, offsets and
 * regions of interest. */
#ifndef CLS_TEST_U8_ROWS_H
#define CLS_TEST_U8_ROWS_H

#include <stddef.h>

/* SIZE deterministic bytes from SEED into BYTES, and the w x h u8 image they hold from OFFSET,
 * PITCH bytes a row, as doubles into VALUES (the bytes around it stand for other data). */
static void make_rows_u8(unsigned char *bytes, size_t size, unsigned seed, int offset, int pitch, int w, int h,
                         double *values)
{
    for (size_t k = 0; k < size; ++k) {
        seed = seed * 1103515245u + 12345u;
        bytes[k] = (unsigned char)(seed >> 16);
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) values[y * w + x] = bytes[offset + y * pitch + x];
}

#endif
