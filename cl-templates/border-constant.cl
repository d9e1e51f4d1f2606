/* Border pattern constant: kkkk|abcd|kkkk — an outside pixel is never read; the kernel
 * argument border_value stands in for it. These predicates say whether an index is inside. */
int inside_lo(int i, int n) { (void)n; return i >= 0; }
int inside_hi(int i, int n) { return i < n; }
int inside_both(int i, int n) { return i >= 0 && i < n; }
