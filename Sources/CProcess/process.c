#include "feedline_process.h"

#include <malloc.h>
#include <sys/prctl.h>

int feedline_malloc_one_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}

int feedline_signal_when_parent_dies(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}
