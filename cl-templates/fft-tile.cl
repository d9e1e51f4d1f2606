/* The FFT's one kernel, its transforms: a work-group of 256 work-items holds a 64x64 complex tile
 * in local memory (fft-tile-pairs.cl: two 64x64 tiles of the input as its real and imaginary parts;
 * fft-tile-wide.cl: one 128-wide real tile, its even and odd columns), transforms its rows and
 * columns, multiplies the spectrum by the mask's (conjugated and scaled by 1/4096 on the host, so
 * the inverse needs no scaling) and transforms it back.
 *
 * A 64-point transform of a line (a row, then a column) is 16 x 4: work-item q of the line's
 * four takes the values q, q + 4, ..., q + 60 through a 16-point DFT in registers and multiplies
 * them by the twiddles W^(q k); then for each k1 = q + 4 s, a 4-point DFT across the four
 * work-items' results gives X[k1 + 16 k2]. The exchange between the two steps stores value k of
 * work-item q at 17 q + k, and the lines lie PITCH apart, so that no two work-items of a
 * half-warp meet in one bank. The inverse runs the same steps backwards with conjugate twiddles.
 *
 * The prologue defines HALF_W, HALF_H, input_t, output_t, WINDOW_ONLY (1 where outputs whose
 * window leaves the image stay unwritten), input_inside (a pixel inside the image as a float),
 * input_at (any pixel, through the border mode) and store_output (a value in the output type). */

#define SIDE 64
#define PITCH 68
#define STEP_Y (SIDE - 2 * HALF_H)

/* W64^j = exp(-2 pi i j / 64) */
__constant float2 W64[64] = {
    (float2)(1.0f, 0.0f), (float2)(0.995184727f, -0.09801714f),
    (float2)(0.98078528f, -0.195090322f), (float2)(0.956940336f, -0.290284677f),
    (float2)(0.923879533f, -0.382683432f), (float2)(0.881921264f, -0.471396737f),
    (float2)(0.831469612f, -0.555570233f), (float2)(0.773010453f, -0.634393284f),
    (float2)(0.707106781f, -0.707106781f), (float2)(0.634393284f, -0.773010453f),
    (float2)(0.555570233f, -0.831469612f), (float2)(0.471396737f, -0.881921264f),
    (float2)(0.382683432f, -0.923879533f), (float2)(0.290284677f, -0.956940336f),
    (float2)(0.195090322f, -0.98078528f), (float2)(0.09801714f, -0.995184727f),
    (float2)(0.0f, -1.0f), (float2)(-0.09801714f, -0.995184727f),
    (float2)(-0.195090322f, -0.98078528f), (float2)(-0.290284677f, -0.956940336f),
    (float2)(-0.382683432f, -0.923879533f), (float2)(-0.471396737f, -0.881921264f),
    (float2)(-0.555570233f, -0.831469612f), (float2)(-0.634393284f, -0.773010453f),
    (float2)(-0.707106781f, -0.707106781f), (float2)(-0.773010453f, -0.634393284f),
    (float2)(-0.831469612f, -0.555570233f), (float2)(-0.881921264f, -0.471396737f),
    (float2)(-0.923879533f, -0.382683432f), (float2)(-0.956940336f, -0.290284677f),
    (float2)(-0.98078528f, -0.195090322f), (float2)(-0.995184727f, -0.09801714f),
    (float2)(-1.0f, 0.0f), (float2)(-0.995184727f, 0.09801714f),
    (float2)(-0.98078528f, 0.195090322f), (float2)(-0.956940336f, 0.290284677f),
    (float2)(-0.923879533f, 0.382683432f), (float2)(-0.881921264f, 0.471396737f),
    (float2)(-0.831469612f, 0.555570233f), (float2)(-0.773010453f, 0.634393284f),
    (float2)(-0.707106781f, 0.707106781f), (float2)(-0.634393284f, 0.773010453f),
    (float2)(-0.555570233f, 0.831469612f), (float2)(-0.471396737f, 0.881921264f),
    (float2)(-0.382683432f, 0.923879533f), (float2)(-0.290284677f, 0.956940336f),
    (float2)(-0.195090322f, 0.98078528f), (float2)(-0.09801714f, 0.995184727f),
    (float2)(0.0f, 1.0f), (float2)(0.09801714f, 0.995184727f),
    (float2)(0.195090322f, 0.98078528f), (float2)(0.290284677f, 0.956940336f),
    (float2)(0.382683432f, 0.923879533f), (float2)(0.471396737f, 0.881921264f),
    (float2)(0.555570233f, 0.831469612f), (float2)(0.634393284f, 0.773010453f),
    (float2)(0.707106781f, 0.707106781f), (float2)(0.773010453f, 0.634393284f),
    (float2)(0.831469612f, 0.555570233f), (float2)(0.881921264f, 0.471396737f),
    (float2)(0.923879533f, 0.382683432f), (float2)(0.956940336f, 0.290284677f),
    (float2)(0.98078528f, 0.195090322f), (float2)(0.995184727f, 0.09801714f),
};

float2 complex_times(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

/* A 4-point DFT of v[i0], v[i1], v[i2], v[i3] in place; sign 1 forward (W = -i), -1 inverse. */
void dft4(float2 *v, int i0, int i1, int i2, int i3, float sign)
{
    const float2 t0 = v[i0] + v[i2], t1 = v[i0] - v[i2], t2 = v[i1] + v[i3], t3 = v[i1] - v[i3];
    const float2 turned = sign * (float2)(t3.y, -t3.x);
    v[i0] = t0 + t2;
    v[i1] = t1 + turned;
    v[i2] = t0 - t2;
    v[i3] = t1 - turned;
}

/* v[n] times W16^(sign n) (cos and sin of 2 pi n / 16 for n = 1, 2, 3, 4, 6, 9). */
float2 twiddle16(float2 v, int n, float sign)
{
    const float c1 = 0.923879532511f, s1 = 0.382683432365f, c2 = 0.707106781187f;
    switch (n) {
    case 1: return complex_times(v, (float2)(c1, -sign * s1));
    case 2: return complex_times(v, (float2)(c2, -sign * c2));
    case 3: return complex_times(v, (float2)(s1, -sign * c1));
    case 4: return sign * (float2)(v.y, -v.x);
    case 6: return complex_times(v, (float2)(-c2, -sign * c2));
    case 9: return complex_times(v, (float2)(-c1, sign * s1));
    default: return v;
    }
}

/* A 16-point DFT of v[0..15] in place as 4 x 4; X[k] ends in v[4 (k % 4) + k / 4] (AT(k)). */
#define AT(k) (4 * ((k) & 3) + ((k) >> 2))
void dft16(float2 *v, float sign)
{
    for (int b = 0; b < 4; ++b) dft4(v, b, b + 4, b + 8, b + 12, sign);
    for (int b = 1; b < 4; ++b)
        for (int c = 1; c < 4; ++c) v[b + 4 * c] = twiddle16(v[b + 4 * c], b * c, sign);
    for (int c = 0; c < 4; ++c) dft4(v, 4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3, sign);
}

/* The first step of a line's forward transform (the line's values at base + k * stride): work-item
 * q's 16-point DFT, times W64^(q k1) (W64^(4 q a) W64^(q b) for k1 = 4 a + b), stored at 17 q + k1
 * for the second step. */
void forward_sixteen(__local float2 *tile, int base, int stride, int q, float2 *v)
{
    for (int n = 0; n < 16; ++n) v[n] = tile[base + (4 * n + q) * stride];
    dft16(v, 1.0f);
    float2 ones[4], fours[4];
    ones[1] = W64[q];
    fours[1] = W64[4 * q];
    for (int k = 2; k < 4; ++k) {
        ones[k] = complex_times(ones[k - 1], ones[1]);
        fours[k] = complex_times(fours[k - 1], fours[1]);
    }
    for (int k = 1; k < 16; ++k) {
        const float2 w = (k & 3) == 0 ? fours[k >> 2] : k < 4 ? ones[k] : complex_times(fours[k >> 2], ones[k & 3]);
        v[AT(k)] = complex_times(v[AT(k)], w);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < 16; ++k) tile[base + (17 * q + k) * stride] = v[AT(k)];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The second step: for k1 = q + 4 s, the 4-point DFT across the first steps' results; leaves
 * X[k1 + 16 k2] in v[4 s + k2]. */
void forward_four(__local const float2 *tile, int base, int stride, int q, float2 *v)
{
    for (int s = 0; s < 4; ++s) {
        for (int n = 0; n < 4; ++n) v[4 * s + n] = tile[base + (17 * n + q + 4 * s) * stride];
        dft4(v, 4 * s, 4 * s + 1, 4 * s + 2, 4 * s + 3, 1.0f);
    }
}

/* The inverse of forward_four: v[4 s + k2] holds X[q + 4 s + 16 k2]; 4-point inverse DFTs, times
 * W64^-(n k1) (W64^-(n q) W64^-(4 n s) for k1 = q + 4 s), stored at 17 n + k1 for inverse_sixteen.
 * A line whose outputs are not needed (active 0) only keeps the group's barriers. */
void inverse_four(__local float2 *tile, int base, int stride, int q, int active, float2 *v)
{
    if (active) {
        for (int s = 0; s < 4; ++s) dft4(v, 4 * s, 4 * s + 1, 4 * s + 2, 4 * s + 3, -1.0f);
        float2 powers[4];
        for (int n = 1; n < 4; ++n) powers[n] = W64[n * q];
        for (int s = 0; s < 4; ++s)
            for (int n = 1; n < 4; ++n) {
                const float2 w = s == 0 ? powers[n] : complex_times(powers[n], W64[4 * n * s]);
                v[4 * s + n] = complex_times(v[4 * s + n], (float2)(w.x, -w.y));
            }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active)
        for (int s = 0; s < 4; ++s)
            for (int n = 0; n < 4; ++n) tile[base + (17 * n + q + 4 * s) * stride] = v[4 * s + n];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The inverse of forward_sixteen: the line's value 4 n + q ends in v[AT(n)]. */
void inverse_sixteen(__local const float2 *tile, int base, int stride, int q, float2 *v)
{
    for (int k = 0; k < 16; ++k) v[k] = tile[base + (17 * q + k) * stride];
    dft16(v, -1.0f);
}

/* The forward transform's values of work-item q of a line, X[q + 4 j] from v[j] (j = s + 4 k2
 * of forward_four's v[4 s + k2]), stored in natural order. */
void store_natural(__local float2 *tile, int base, int stride, int q, const float2 *v)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < 4; ++s)
        for (int k2 = 0; k2 < 4; ++k2) tile[base + (q + 4 * s + 16 * k2) * stride] = v[4 * s + k2];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The kernels' steps over the whole tile. Work-items 4 r .. 4 r + 3 take row r (row_base = r *
 * PITCH, q = l & 3); a column (c, q) takes c's low two bits and q from l's low four, c's high four
 * from l's high four (four columns x four q a half-warp). */

/* Every row's forward transform, in natural order in the tile. */
void forward_rows(__local float2 *tile, int row_base, int row_q, float2 *v)
{
    forward_sixteen(tile, row_base, 1, row_q, v);
    forward_four(tile, row_base, 1, row_q, v);
    store_natural(tile, row_base, 1, row_q, v);
}

/* A column's forward transform: X[column_q + 4 s + 16 k2] in v[4 s + k2]. */
void forward_column(__local float2 *tile, int column, int column_q, float2 *v)
{
    forward_sixteen(tile, column, PITCH, column_q, v);
    forward_four(tile, column, PITCH, column_q, v);
}

/* The inverse of forward_column, the rows of outputs (the first STEP_Y) stored in the tile. */
void inverse_column(__local float2 *tile, int column, int column_q, float2 *v)
{
    inverse_four(tile, column, PITCH, column_q, 1, v);
    inverse_sixteen(tile, column, PITCH, column_q, v);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = 0; n < 16; ++n)
        if (4 * n + column_q < STEP_Y) tile[(4 * n + column_q) * PITCH + column] = v[AT(n)];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* A row's inverse transform where it holds outputs (active): its value 4 n + row_q in v[AT(n)];
 * the other rows only keep the group's barriers. */
void inverse_row(__local float2 *tile, int row_base, int row_q, int active, float2 *v)
{
    if (active)
        for (int s = 0; s < 4; ++s)
            for (int k2 = 0; k2 < 4; ++k2) v[4 * s + k2] = tile[row_base + row_q + 4 * s + 16 * k2];
    inverse_four(tile, row_base, 1, row_q, active, v);
    if (active) inverse_sixteen(tile, row_base, 1, row_q, v);
}

/* Outputs (x, y) of the region, less those whose window leaves the image where the border is
 * undefined. */
int writes(int x, int y, int2 size, int4 region)
{
#if WINDOW_ONLY
    if (x < HALF_W || x >= size.x - HALF_W || y < HALF_H || y >= size.y - HALF_H) return 0;
#else
    (void)size;
#endif
    return x < region.z && y < region.w;
}

