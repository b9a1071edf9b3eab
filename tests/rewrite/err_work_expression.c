/* work(expr) is checked as C where the parameters are in scope: a name
 * that is not one of them is an error at its column. */
#pragma dag task inout(x[0:n]) work(m * 2)
void scale(double *x, int n);
