/* copy_route.c — which way each part of a copy goes (copies.c queues it):
 * host memory registered with the devices (registered.c) straight, by
 * DMA at the link's rate; other memory, on a device that stages copies,
 * through staging buffers in chunks of whole rows (or of one row's pieces
 * when a row is larger than a buffer), packed by a core, and else straight
 * too, which a GPU's driver stages itself at a slower rate. A copy whose
 * host side crosses the edge of a registration is split there, by rows,
 * and a row that crosses it in pieces (rows of one stride may be of two
 * arrays that lie one after the other).
 */
#include "device/copies.h"
#include "device/registered.h"

#include <stdio.h>

/* Through staging buffers, in chunks that fit one; counted as packed. */
static void queue_staged(const struct copy_job *job,
                         const struct space_copy *c) {
  struct device *d = job->d;
  if (!d->bytes_packed && job->task)
    d->first_packed = dag__call_info(job->task);
  d->bytes_packed += c->span * c->rows;
  size_t max = dag__stage_max(), step = c->span <= max ? max / c->span : 0;
  for (size_t r = 0; step && r < c->rows; r += step) {
    struct space_copy part = *c;
    part.dst = (char *)c->dst + r * c->dst_stride;
    part.src = (const char *)c->src + r * c->src_stride;
    part.rows = c->rows - r < step ? c->rows - r : step;
    dag__copies_staged(job, &part);
  }
  for (size_t r = 0; !step && r < c->rows; r++)
    for (size_t at = 0; at < c->span; at += max) {
      struct space_copy piece = {(char *)c->dst + r * c->dst_stride + at,
                                 (const char *)c->src + r * c->src_stride + at,
                                 c->span - at < max ? c->span - at : max,
                                 1,
                                 0,
                                 0};
      dag__copies_staged(job, &piece);
    }
}

static void queue_part(const struct copy_job *job, const struct space_copy *c,
                       bool registered) {
  if (registered || !job->d->staging)
    dag__copies_direct(job, c);
  else
    queue_staged(job, c);
}

/* Rows [r, r + rows) of c, bytes [at, at + span) of each. */
static struct space_copy part_of(const struct space_copy *c, size_t r,
                                 size_t rows, size_t at, size_t span) {
  return (struct space_copy){(char *)c->dst + r * c->dst_stride + at,
                             (const char *)c->src + r * c->src_stride + at,
                             span,
                             rows,
                             c->dst_stride,
                             c->src_stride};
}

/* Row r of c, at `host` in host memory, crosses the edge of a
 * registration: each piece goes its way. */
static void queue_row_pieces(const struct copy_job *job,
                             const struct space_copy *c, size_t r,
                             uintptr_t host) {
  bool registered;
  for (size_t at = 0, run; at < c->span; at += run) {
    run = dag__registered_run(host + at, host + c->span, &registered);
    struct space_copy piece = part_of(c, r, 1, at, run);
    queue_part(job, &piece, registered);
  }
}

/* Queues c in runs of whole rows that lie all in registered memory or all
 * outside it (host: its host side's first row, stride apart). */
static void queue_by_registration(const struct copy_job *job,
                                  const struct space_copy *c, uintptr_t host,
                                  size_t stride) {
  for (size_t r = 0; r < c->rows;) {
    bool registered, same;
    uintptr_t row = host + r * stride;
    if (dag__registered_run(row, row + c->span, &registered) < c->span) {
      queue_row_pieces(job, c, r++, row);
      continue;
    }
    size_t rows = 1;
    for (uintptr_t next = row + stride;
         r + rows < c->rows &&
         dag__registered_run(next, next + c->span, &same) == c->span &&
         same == registered;
         next += stride)
      rows++;
    struct space_copy part = part_of(c, r, rows, 0, c->span);
    queue_part(job, &part, registered);
    r += rows;
  }
}

void dag__copies_queue(const struct copy_job *job, const struct space_copy *c) {
  struct device *d = job->d;
  size_t bytes = c->span * c->rows;
  if (job->to_device) {
    d->copies_in++;
    d->bytes_in += bytes;
  } else {
    d->copies_out++;
    d->bytes_out += bytes;
  }
  if (!job->plan)
    dag__copies_settle(d);
  uintptr_t host = (uintptr_t)(job->to_device ? c->src : c->dst);
  size_t stride = job->to_device ? c->src_stride : c->dst_stride;
  size_t extent = (c->rows - 1) * stride + c->span;
  bool registered;
  if (dag__registered_run(host, host + extent, &registered) == extent)
    queue_part(job, c, registered);
  else
    queue_by_registration(job, c, host, stride);
}

void dag__copies_report_packed(const struct device *d) {
  if (!d->bytes_packed)
    return;
  char task[160] = "";
  if (d->first_packed.label || d->first_packed.file)
    dag__task_name(task, sizeof task, d->first_packed.label,
                   d->first_packed.file, d->first_packed.line);
  dag__log(DAG_LOG_INFO,
           "device %s %d: %.1f MiB of copies went through staging buffers, "
           "packed by cores, because the host memory was not registered "
           "with the device%s%s%s; allocate those arrays with dag_alloc, or "
           "register them with dag_register(ptr, bytes), and the device "
           "copies them by DMA at the link's rate",
           d->space.ops->name, d->space.index,
           (double)d->bytes_packed / (1 << 20), task[0] ? " (first: task " : "",
           task, task[0] ? ")" : "");
}
