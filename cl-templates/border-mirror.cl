/* Border pattern mirror (reflect, symmetric): dcba|abcd|dcba — the edge pixel is repeated. */
/* border_lo: i may lie below 0 only and by less than n; border_hi: i may lie at or above n
 * only and by less than n; border_both: any i, folding again and again (period 2n). */
int border_lo(int i, int n) { (void)n; return i < 0 ? -i - 1 : i; }
int border_hi(int i, int n) { return i >= n ? 2 * n - i - 1 : i; }
int border_both(int i, int n)
{
    const int period = 2 * n;
    int j = i % period;
    if (j < 0) j += period;
    return j < n ? j : period - 1 - j;
}
