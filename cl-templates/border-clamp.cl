/* Border pattern clamp (replicate): aaaa|abcd|dddd — an outside index takes the nearest edge. */
/* All take (index, axis length). border_lo: i may lie below 0 only; border_hi: i may lie at or above n only; border_both: any i. */
int border_lo(int i, int n) { (void)n; return max(i, 0); }
int border_hi(int i, int n) { return min(i, n - 1); }
int border_both(int i, int n) { return clamp(i, 0, n - 1); }
