#ifndef FEEDLINE_FUZZ_DRIVER_H
#define FEEDLINE_FUZZ_DRIVER_H

/// Runs libFuzzer's driver on the executable's `LLVMFuzzerTestOneInput` with the command line
/// given; returns its exit status.
///
/// SwiftPM on Linux names an executable's entry point `<module>_main` and makes `main` an
/// alias of it, so libFuzzer's own `main` is never linked: each target's `@main` calls this.
int feedline_fuzz_main(int argc, char **argv);

#endif
