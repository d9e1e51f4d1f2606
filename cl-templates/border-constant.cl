/* Border pattern constant: kkkk|abcd|kkkk — an outside pixel stands for the kernel argument
 * border_value. inside_* say whether an index is inside; border_* clamp it, so that the tap
 * always loads a pixel of the image and select() then discards it when the index was outside
 * (no load leaves the image, and no load depends on a branch). */
int inside_lo(int i, int n) { (void)n; return i >= 0; }
int inside_hi(int i, int n) { return i < n; }
int inside_both(int i, int n) { return i >= 0 && i < n; }
int border_lo(int i, int n) { (void)n; return i < 0 ? 0 : i; } /* comparisons: border-clamp.cl says why */
int border_hi(int i, int n) { return i >= n ? n - 1 : i; }
int border_both(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }
