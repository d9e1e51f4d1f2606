/* Border pattern mirror101 (reflect101): dcb|abcd|cba — the edge pixel is not repeated. */
/* border_lo: i may lie below 0 only and by less than n; border_hi: i may lie at or above n
 * only and by less than n; border_both: any i, folding again and again (period 2n - 2);
 * an axis of length 1 maps everything to 0. */
int border_lo(int i, int n) { (void)n; return i < 0 ? -i : i; }
int border_hi(int i, int n) { return i >= n ? 2 * n - i - 2 : i; }
int border_both(int i, int n)
{
    /* No early return for n == 1 (period 1 maps everything to 0): a branch around the remainder
     * kept PoCL from vectorizing the kernel (a Gaussian 3x3 at 2048^2 took 27 ms, not 1.6). */
    const int period = n > 1 ? 2 * n - 2 : 1;
    int j = i % period;
    if (j < 0) j += period;
    return j < n ? j : period - j;
}
