#ifndef FEEDLINE_CBYTES_H
#define FEEDLINE_CBYTES_H

#include <stddef.h>

/// The offset of the first occurrence of `needle` (`needle_length` bytes) in `haystack`
/// (`haystack_length` bytes), or -1: glibc's `memmem`, which Swift's Glibc module does not
/// declare (it is a GNU extension).
long feedline_find_bytes(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

#endif
