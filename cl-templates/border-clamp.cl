/* Border pattern clamp (replicate): aaaa|abcd|dddd — an outside index takes the nearest edge. */
/* All take (index, axis length). border_lo: i may lie below 0 only; border_hi: i may lie at or above n only; border_both: any i. */
/* Comparisons, not max/min/clamp: with the builtins NVIDIA's ISP kernels ran 15-25% slower at one
 * output per work-item (H100, Gaussian 3x3, 4096^2: isp-block 101-103 us against 86-88), though
 * the body region calls none of them. */
int border_lo(int i, int n) { (void)n; return i < 0 ? 0 : i; }
int border_hi(int i, int n) { return i >= n ? n - 1 : i; }
int border_both(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }
