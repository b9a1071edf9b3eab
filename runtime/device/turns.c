/* turns.c — turns taken in order (devices.h: struct turns). A thread
 * waiting for turn t sleeps on the condition of t's slot, and passing turn
 * t - 1 wakes that slot only. One condition for all would wake every
 * waiting worker at each pass, a dozen of them on a machine of 2 cores,
 * and their wake-ups (futex, and the mutex behind the condition) would take
 * the CPU from the thread whose turn it is.
 */
#include "device/devices.h"

void dag__turns_init(struct turns *t) {
  atomic_init(&t->count, 0);
  pthread_mutex_init(&t->lock, NULL);
  for (int i = 0; i < TURN_SLOTS; i++)
    pthread_cond_init(&t->next[i], NULL);
}

void dag__turns_destroy(struct turns *t) {
  pthread_mutex_destroy(&t->lock);
  for (int i = 0; i < TURN_SLOTS; i++)
    pthread_cond_destroy(&t->next[i]);
}

void dag__turns_wait(struct turns *t, uint64_t turn) {
  if (atomic_load_explicit(&t->count, memory_order_acquire) >= turn)
    return;
  pthread_cond_t *slot = &t->next[turn % TURN_SLOTS];
  pthread_mutex_lock(&t->lock);
  while (atomic_load_explicit(&t->count, memory_order_acquire) < turn)
    pthread_cond_wait(slot, &t->lock);
  pthread_mutex_unlock(&t->lock);
}

void dag__turns_pass(struct turns *t, uint64_t turn) {
  pthread_mutex_lock(&t->lock);
  atomic_store_explicit(&t->count, turn + 1, memory_order_release);
  /* Those waiting for turn + 1; a waiter for a value TURN_SLOTS later
   * shares the slot, wakes and sleeps again. */
  pthread_cond_broadcast(&t->next[(turn + 1) % TURN_SLOTS]);
  pthread_mutex_unlock(&t->lock);
}
