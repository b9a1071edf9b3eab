/* implements() must name a task function declared before the variant,
 * with the same parameters. */
#pragma dag task inout(x[:n])
void scale(double *x, int n);

#pragma dag task device(cuda) implements(scale)
void scale_float(float *x, int n);

#pragma dag task device(hip) implements(shift)
void shift_hip(double *x, int n);
