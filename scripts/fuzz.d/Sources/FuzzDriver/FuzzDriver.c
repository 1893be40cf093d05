#include "FuzzDriver.h"
#include <stddef.h>
#include <stdint.h>

// Defined by each target (Swift, @_cdecl) and by libFuzzer (linked by -sanitize=fuzzer).
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int feedline_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
