/* gpu_body.h — the device bodies gpu_space.c launches: one per GPU API,
 * from gpu_body.c, compiled once per space built (as space_gpu.c is). */
#ifndef DAG_GPU_BODY_H
#define DAG_GPU_BODY_H

/* Queues the move of a struct space_move (space_checks.h) from the device
 * to itself on the stream the runtime gives the body; notes that stream in
 * gpu_body_stream and the API's answer (0: success) in gpu_body_error. */
void cuda_move(void *move);
void hip_move(void *move);

extern void *gpu_body_stream;
extern int gpu_body_error;

#endif
