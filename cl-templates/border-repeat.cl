/* Border pattern repeat (wrap, periodic): abcd|abcd|abcd — the image tiles the plane. */
/* border_lo: i may lie below 0 only and by at most n; border_hi: i may lie at or above n only
 * and by less than n; border_both: any i (modulo n). */
int border_lo(int i, int n) { return i < 0 ? i + n : i; }
int border_hi(int i, int n) { return i >= n ? i - n : i; }
int border_both(int i, int n)
{
    const int j = i % n;
    return j < 0 ? j + n : j;
}
