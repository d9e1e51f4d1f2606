/* The FFT's one kernel over one real tile 128 wide and 64 tall a group (after fft-tile.cl): its even
 * and odd columns are the real and imaginary parts of the complex tile; each row's transform is
 * split into the first half of the real row's (split_row), whose columns 0 and 64, both real,
 * share column 0 (taken apart again for the multiplication), and joined again before the rows'
 * inverse (unsplit_row). The tile's first STEP_X x STEP_Y values are its outputs: more a group
 * than two 64x64 tiles give for wide masks, for two more passes through local memory. */

#define STEP_X (2 * SIDE - 2 * HALF_W)

/* W128^k = exp(-2 pi i k / 128), k = 0 .. 32: the real transform's split */
__constant float2 W128[33] = {
    (float2)(1.0f, 0.0f), (float2)(0.998795456f, -0.049067674f), (float2)(0.995184727f, -0.09801714f),
    (float2)(0.98917651f, -0.146730474f), (float2)(0.98078528f, -0.195090322f), (float2)(0.970031253f, -0.24298018f),
    (float2)(0.956940336f, -0.290284677f), (float2)(0.941544065f, -0.336889853f), (float2)(0.923879533f, -0.382683432f),
    (float2)(0.903989293f, -0.427555093f), (float2)(0.881921264f, -0.471396737f), (float2)(0.85772861f, -0.514102744f),
    (float2)(0.831469612f, -0.555570233f), (float2)(0.803207531f, -0.595699304f), (float2)(0.773010453f, -0.634393284f),
    (float2)(0.740951125f, -0.671558955f), (float2)(0.707106781f, -0.707106781f), (float2)(0.671558955f, -0.740951125f),
    (float2)(0.634393284f, -0.773010453f), (float2)(0.595699304f, -0.803207531f), (float2)(0.555570233f, -0.831469612f),
    (float2)(0.514102744f, -0.85772861f), (float2)(0.471396737f, -0.881921264f), (float2)(0.427555093f, -0.903989293f),
    (float2)(0.382683432f, -0.923879533f), (float2)(0.336889853f, -0.941544065f), (float2)(0.290284677f, -0.956940336f),
    (float2)(0.24298018f, -0.970031253f), (float2)(0.195090322f, -0.98078528f), (float2)(0.146730474f, -0.98917651f),
    (float2)(0.09801714f, -0.995184727f), (float2)(0.049067674f, -0.998795456f), (float2)(0.0f, -1.0f),
};

/* Values 2 u, 2 u + 1 of rows v0 + 4 i of the 128-wide tile whose first output is origin, as
 * values[i]: the input HALF_W, HALF_H before it, through the border mode only where the tile's
 * reach leaves the image. */
void gather_wide(__global const input_t *input, int offset, int pitch, int2 size, int2 origin, int u, int v0,
                 float border_value, float2 *values)
{
    const int x = origin.x - HALF_W + 2 * u, top = origin.y - HALF_H + v0;
    if (origin.x - HALF_W >= 0 && origin.x - HALF_W + 2 * SIDE <= size.x && origin.y - HALF_H >= 0 &&
        origin.y - HALF_H + SIDE <= size.y) {
        for (int i = 0; i < 16; ++i)
            values[i] = (float2)(input_inside(input, offset, pitch, x, top + 4 * i),
                                 input_inside(input, offset, pitch, x + 1, top + 4 * i));
    } else {
        for (int i = 0; i < 16; ++i)
            values[i] = (float2)(input_at(input, offset, pitch, size, x, top + 4 * i, border_value),
                                 input_at(input, offset, pitch, size, x + 1, top + 4 * i, border_value));
    }
}

/* A row's 64-point transform Z of z[n] = x[2 n] + i x[2 n + 1] into the first half of its real
 * transform X (k = 0 .. 64) in place: X[k] = E[k] + W128^k O[k], with E and O the transforms of the
 * even and odd values; X[0] and X[64], both real, share place 0. Work-item q takes k = q + 4 j up to
 * 32 and its partner 64 - k. */
void split_row(__local float2 *tile, int base, int q)
{
    for (int j = 0; j < 9; ++j) {
        const int k = q + 4 * j;
        if (k > 32) break;
        const float2 zk = tile[base + k], zm = tile[base + ((SIDE - k) & (SIDE - 1))];
        const float2 even = 0.5f * (float2)(zk.x + zm.x, zk.y - zm.y);
        const float2 odd = 0.5f * (float2)(zk.y + zm.y, zm.x - zk.x);
        const float2 turned = complex_times(W128[k], odd);
        if (k == 0) {
            tile[base] = (float2)(even.x + turned.x, even.x - turned.x);
        } else {
            tile[base + k] = even + turned;
            tile[base + SIDE - k] = (float2)(even.x - turned.x, turned.y - even.y);
        }
    }
}

/* The inverse of split_row: X[k] (k = 0 .. 64, X[0] and X[64] at place 0) into Z[k] = E[k] + i O[k],
 * E[k] = (X[k] + conj X[64 - k]) / 2, O[k] = (X[k] - conj X[64 - k]) conj(W128^k) / 2. */
void unsplit_row(__local float2 *tile, int base, int q)
{
    for (int j = 0; j < 9; ++j) {
        const int k = q + 4 * j;
        if (k > 32) break;
        if (k == 0) {
            const float2 p = tile[base];
            tile[base] = 0.5f * (float2)(p.x + p.y, p.x - p.y);
            continue;
        }
        const float2 a = tile[base + k], b = tile[base + SIDE - k];
        const float2 even = 0.5f * (float2)(a.x + b.x, a.y - b.y);
        const float2 w = W128[k];
        const float2 odd = complex_times(0.5f * (float2)(a.x - b.x, a.y + b.y), (float2)(w.x, -w.y));
        tile[base + k] = (float2)(even.x - odd.y, even.y + odd.x);
        tile[base + SIDE - k] = (float2)(even.x + odd.y, odd.x - even.y);
    }
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void cls_fft_tile(__global const input_t *input, int input_offset, int input_pitch, int2 size, int4 region,
                  int tiles_x, int tiles, __global const float2 *spectrum, __global output_t *output,
                  int output_offset, int output_pitch, float border_value)
{
    __local float2 tile[PITCH * PITCH]; /* a column's exchange reaches row 17 * 3 + 15 */
    __local float2 packed[SIDE];        /* the column of X[0] + i X[64], natural order */
    (void)tiles;
    const int l = get_local_id(0), t = get_group_id(0);
    const int2 a = (int2)(region.x + (t % tiles_x) * STEP_X, region.y + (t / tiles_x) * STEP_Y);
    {
        const int u = l & 63, v0 = l >> 6;
        float2 values[16];
        gather_wide(input, input_offset, input_pitch, size, a, u, v0, border_value, values);
        for (int i = 0; i < 16; ++i) tile[(v0 + 4 * i) * PITCH + u] = values[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int y = l >> 2, row_q = l & 3, row_base = y * PITCH, active = y < STEP_Y;
    const int column = (l & 3) | ((l >> 4) << 2), column_q = (l >> 2) & 3;
    float2 v[16];
    forward_rows(tile, row_base, row_q, v);
    split_row(tile, row_base, row_q);
    barrier(CLK_LOCAL_MEM_FENCE);
    forward_column(tile, column, column_q, v);
    /* column 0 holds X[0] + i X[64] of each row: its transform P = C0 + i C64 comes apart by
     * P[-ky]: C0 = (P[ky] + conj P[-ky]) / 2, C64 = (P[ky] - conj P[-ky]) / 2i */
    if (column == 0)
        for (int s = 0; s < 4; ++s)
            for (int k2 = 0; k2 < 4; ++k2) packed[column_q + 4 * s + 16 * k2] = v[4 * s + k2];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < 4; ++s)
        for (int k2 = 0; k2 < 4; ++k2) {
            const int ky = column_q + 4 * s + 16 * k2;
            const float2 value = v[4 * s + k2];
            if (column == 0) {
                const float2 partner = packed[(SIDE - ky) & (SIDE - 1)];
                const float2 c0 = 0.5f * (float2)(value.x + partner.x, value.y - partner.y);
                const float2 c64 = 0.5f * (float2)(value.y + partner.y, partner.x - value.x);
                const float2 m0 = complex_times(c0, spectrum[ky * (SIDE + 1)]);
                const float2 m64 = complex_times(c64, spectrum[ky * (SIDE + 1) + SIDE]);
                v[4 * s + k2] = (float2)(m0.x - m64.y, m0.y + m64.x);
            } else {
                v[4 * s + k2] = complex_times(value, spectrum[ky * (SIDE + 1) + column]);
            }
        }
    inverse_column(tile, column, column_q, v);
    if (active) unsplit_row(tile, row_base, row_q);
    barrier(CLK_LOCAL_MEM_FENCE);
    inverse_row(tile, row_base, row_q, active, v);
    if (!active) return;

    for (int n = 0; n < 16; ++n)
        for (int odd = 0; odd < 2; ++odd) {
            const int x = 2 * (4 * n + row_q) + odd;
            if (x < STEP_X && writes(a.x + x, a.y + y, size, region))
                store_output(output, output_offset + (size_t)(a.y + y) * output_pitch + a.x + x,
                             odd ? v[AT(n)].y : v[AT(n)].x);
        }
}
