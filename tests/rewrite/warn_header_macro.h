/* Accessor macros of the kind numerical codes keep in a header. */
#define ELEM(A, ld, i, j) (A)[(i) * (ld) + (j)]
#define AT(p, k) (*((p) + (k)))
