#ifndef FEEDLINE_PROCESS_H
#define FEEDLINE_PROCESS_H

/// Makes every thread allocate from glibc's main malloc arena (mallopt M_ARENA_MAX = 1) instead
/// of one arena per thread that allocates (up to 8 per core). Call first thing, before other
/// threads exist. Returns 1 when the setting took (0 otherwise: nothing changes then).
int feedline_malloc_one_arena(void);

/// Asks the kernel to send `signal` to this process when its parent exits (prctl
/// PR_SET_PDEATHSIG, which is variadic). Returns 0, or -1 with errno set.
int feedline_signal_when_parent_dies(int signal);

#endif
