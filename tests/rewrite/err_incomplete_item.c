/* An item whose type has no size (void, an incomplete struct) cannot be a
 * region. */
struct opaque;
void work(void *p, struct opaque *h);

void f(void *p, struct opaque *h) {
#pragma dag task out(*p) inout(*h)
  work(p, h);
}
