// Default AddressSanitizer options for the sanitizer and fuzzing builds (linked only there).
//
// LLVM's BumpPtrAllocator poisons and unpoisons its slabs in inline header code when the
// including file is built with ASan. Debian's libMLIR/libLLVM are not, so a slab poisoned
// by our code and then filled by the library is a false "use-after-poison". Manual
// poisoning is turned off; ordinary heap, stack and use-after-free checks stay on.
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }
