/* A body that returns before assigning OUT: refused by the body rules. */
if (IN(0, 0) > 0.5f) return;
OUT = IN(0, 0);
