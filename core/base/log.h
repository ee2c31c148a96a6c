// Logging and fatal errors. Every line names the PE (once the runtime knows it) so that the
// interleaved output of a job can be read.
#pragma once

#include <cstdarg>
#include <string>

namespace gasket::log {

enum class Level { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3, kTrace = 4 };

// Set once at init (from GASKET_LOG) and when the PE learns its number.
void set_level(Level level);
Level level();
void set_pe(int pe);
bool parse_level(const std::string& text, Level* out);

// printf-style; a newline is added.
void write(Level level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void vwrite(Level level, const char* fmt, va_list args);

// The hook a fatal error calls after printing: the runtime installs one that aborts the whole
// job through the launcher; the default exits the process with status 1.
using FatalHook = void (*)(const std::string& message);
void set_fatal_hook(FatalHook hook);

// Prints "gasket: PE n: <message>" and ends the job. Never returns.
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace gasket::log

#define GASKET_LOG(lvl, ...)                                                        \
  do {                                                                              \
    if (static_cast<int>(lvl) <= static_cast<int>(::gasket::log::level()))           \
      ::gasket::log::write(lvl, __VA_ARGS__);                                       \
  } while (0)
#define GASKET_DEBUG(...) GASKET_LOG(::gasket::log::Level::kDebug, __VA_ARGS__)
#define GASKET_INFO(...) GASKET_LOG(::gasket::log::Level::kInfo, __VA_ARGS__)
#define GASKET_WARN(...) GASKET_LOG(::gasket::log::Level::kWarn, __VA_ARGS__)
