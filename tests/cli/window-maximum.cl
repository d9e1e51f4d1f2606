/* A window maximum (grey-level dilation) as a user-written operator. */
float best = -INFINITY;
FOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));
OUT = best;
