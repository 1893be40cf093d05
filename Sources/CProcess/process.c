#include "feedline_process.h"

#include <malloc.h>

int feedline_malloc_one_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}
