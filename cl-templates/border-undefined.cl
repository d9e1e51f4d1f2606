/* Border pattern undefined: no border handling is generated. Output pixels whose window
 * reaches outside the image are left unwritten (their values are the caller's), so the
 * kernel never reads outside the image. These predicates say whether an index is inside. */
int inside_lo(int i, int n) { (void)n; return i >= 0; }
int inside_hi(int i, int n) { return i < n; }
int inside_both(int i, int n) { return i >= 0 && i < n; }
