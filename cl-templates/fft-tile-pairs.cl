/* The FFT's one kernel over two 64x64 tiles a group (after fft-tile.cl): the first tile the real
 * part of the complex tile, the second the imaginary part; since the mask is real, the real part
 * of the result is the first tile's correlation and the imaginary part the second's. Each tile's
 * first STEP_X x STEP_Y values are its outputs. */

#define STEP_X (SIDE - 2 * HALF_W)

/* The first output of tile t (tiles_x a row of tiles, from the region's corner). */
int2 tile_origin(int t, int tiles_x, int4 region)
{
    return (int2)(region.x + (t % tiles_x) * STEP_X, region.y + (t / tiles_x) * STEP_Y);
}

/* Tile values (u, v0 + 4 i) of the tile whose first output is origin, as the (x, y) part of
 * values[i]: the input HALF_W, HALF_H before it, through the border mode only where the tile's
 * reach leaves the image. */
void gather(__global const input_t *input, int offset, int pitch, int2 size, int2 origin, int u, int v0,
            float border_value, float *values)
{
    const int x = origin.x - HALF_W + u, top = origin.y - HALF_H + v0;
    if (origin.x - HALF_W >= 0 && origin.x - HALF_W + SIDE <= size.x && origin.y - HALF_H >= 0 &&
        origin.y - HALF_H + SIDE <= size.y) {
        for (int i = 0; i < 16; ++i) values[i] = input_inside(input, offset, pitch, x, top + 4 * i);
    } else {
        for (int i = 0; i < 16; ++i) values[i] = input_at(input, offset, pitch, size, x, top + 4 * i, border_value);
    }
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void cls_fft_tile(__global const input_t *input, int input_offset, int input_pitch, int2 size, int4 region,
                  int tiles_x, int tiles, __global const float2 *spectrum, __global output_t *output,
                  int output_offset, int output_pitch, float border_value)
{
    __local float2 tile[PITCH * PITCH]; /* a column's exchange reaches row 17 * 3 + 15 */
    const int l = get_local_id(0), first = 2 * get_group_id(0), second = first + 1 < tiles;
    const int2 a = tile_origin(first, tiles_x, region), b = tile_origin(first + 1, tiles_x, region);
    {
        const int u = l & 63, v0 = l >> 6;
        float real[16], imaginary[16] = {0.0f};
        gather(input, input_offset, input_pitch, size, a, u, v0, border_value, real);
        if (second) gather(input, input_offset, input_pitch, size, b, u, v0, border_value, imaginary);
        for (int i = 0; i < 16; ++i) tile[(v0 + 4 * i) * PITCH + u] = (float2)(real[i], imaginary[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int y = l >> 2, row_q = l & 3, row_base = y * PITCH, active = y < STEP_Y;
    const int column = (l & 3) | ((l >> 4) << 2), column_q = (l >> 2) & 3;
    float2 v[16];
    forward_rows(tile, row_base, row_q, v);
    forward_column(tile, column, column_q, v);
    for (int s = 0; s < 4; ++s)
        for (int k2 = 0; k2 < 4; ++k2)
            v[4 * s + k2] = complex_times(v[4 * s + k2], spectrum[(column_q + 4 * s + 16 * k2) * SIDE + column]);
    inverse_column(tile, column, column_q, v);
    inverse_row(tile, row_base, row_q, active, v);
    if (!active) return;

    for (int n = 0; n < 16; ++n) {
        const int x = 4 * n + row_q;
        if (x >= STEP_X) continue;
        if (writes(a.x + x, a.y + y, size, region))
            store_output(output, output_offset + (size_t)(a.y + y) * output_pitch + a.x + x, v[AT(n)].x);
        if (second && writes(b.x + x, b.y + y, size, region))
            store_output(output, output_offset + (size_t)(b.y + y) * output_pitch + b.x + x, v[AT(n)].y);
    }
}
