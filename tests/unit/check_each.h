/* check_each.h — one Check assertion over a whole array. Check records a
 * checkpoint (a write to its log) on every assertion: one assertion per
 * element of a 20 MiB array cost check_device 45 s under ThreadSanitizer,
 * and with another test beside it the suite's timeout expired in the middle
 * of the loop, reported at the loop's line. These scan first and assert
 * once, naming the first index that fails.
 */
#ifndef DAG_CHECK_EACH_H
#define DAG_CHECK_EACH_H

#include <check.h>
#include <stddef.h>

/* cond holds for every i in [0, n). */
#define CHECK_EACH(i, n, cond)                                                 \
  do {                                                                         \
    long check_each_bad_ = -1;                                                 \
    for (long i = 0; i < (long)(n) && check_each_bad_ < 0; i++)                \
      if (!(cond))                                                             \
        check_each_bad_ = i;                                                   \
    ck_assert_msg(check_each_bad_ < 0, "'%s' fails at %s = %ld", #cond, #i,    \
                  check_each_bad_);                                            \
  } while (0)

/* cond holds for every i in [0, ni) and j in [0, nj). */
#define CHECK_EACH_2D(i, ni, j, nj, cond)                                      \
  do {                                                                         \
    long check_each_i_ = -1, check_each_j_ = -1;                               \
    for (long i = 0; i < (long)(ni) && check_each_i_ < 0; i++)                 \
      for (long j = 0; j < (long)(nj) && check_each_i_ < 0; j++)               \
        if (!(cond)) {                                                         \
          check_each_i_ = i;                                                   \
          check_each_j_ = j;                                                   \
        }                                                                      \
    ck_assert_msg(check_each_i_ < 0, "'%s' fails at %s = %ld, %s = %ld",       \
                  #cond, #i, check_each_i_, #j, check_each_j_);                \
  } while (0)

#endif /* DAG_CHECK_EACH_H */
