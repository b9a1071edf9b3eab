/* A section whose length is a negative constant: a literal, or an
 * expression the compiler can evaluate (a macro, an enumerator). */
#define N 4
enum { K = 3 };
void work(int *a);

void f(int *a) {
#pragma dag task out(a[0:-1])
  work(a);
#pragma dag task in(a[2:N - 8]) in(a[1:K - 5])
  work(a);
}
