// Which sanitizer a test build runs under. GCC says so with __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__, clang with __has_feature; the tests ask these two names instead.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define SMEMU_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMEMU_UNDER_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define SMEMU_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMEMU_UNDER_TSAN 1
#endif
#endif
