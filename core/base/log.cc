#include "core/base/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/base/status.h"

namespace gasket {

Status errno_error(const std::string& what) {
  return io_error(what + ": " + std::strerror(errno));
}

namespace log {
namespace {
// Process-wide logging state: the only statics outside the runtime context, because logging must
// work before the context exists and after it is gone.
std::atomic<int> g_level{static_cast<int>(Level::kWarn)};
std::atomic<int> g_pe{-1};
std::atomic<FatalHook> g_fatal_hook{nullptr};

const char* level_name(Level l) {
  switch (l) {
    case Level::kError: return "error";
    case Level::kWarn: return "warning";
    case Level::kInfo: return "info";
    case Level::kDebug: return "debug";
    case Level::kTrace: return "trace";
  }
  return "?";
}

void emit(const char* prefix, const char* fmt, va_list args) {
  char body[2048];
  vsnprintf(body, sizeof body, fmt, args);
  char line[2300];
  int pe = g_pe.load(std::memory_order_relaxed);
  int n = pe >= 0 ? snprintf(line, sizeof line, "gasket: PE %d: %s%s\n", pe, prefix, body)
                  : snprintf(line, sizeof line, "gasket: %s%s\n", prefix, body);
  if (n > static_cast<int>(sizeof line)) n = sizeof line;
  // One write() per line so lines of concurrent PEs do not interleave mid-line.
  ssize_t ignored = ::write(STDERR_FILENO, line, static_cast<size_t>(n));
  (void)ignored;
}
}  // namespace

void set_level(Level l) { g_level.store(static_cast<int>(l)); }
Level level() { return static_cast<Level>(g_level.load(std::memory_order_relaxed)); }
void set_pe(int pe) { g_pe.store(pe); }

bool parse_level(const std::string& t, Level* out) {
  static const struct { const char* name; Level level; } kNames[] = {
      {"error", Level::kError}, {"warn", Level::kWarn}, {"warning", Level::kWarn},
      {"info", Level::kInfo},   {"debug", Level::kDebug}, {"trace", Level::kTrace}};
  for (const auto& n : kNames) {
    if (t == n.name) {
      *out = n.level;
      return true;
    }
  }
  return false;
}

void vwrite(Level l, const char* fmt, va_list args) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "%s: ", level_name(l));
  emit(l == Level::kInfo ? "" : prefix, fmt, args);
}

void write(Level l, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vwrite(l, fmt, args);
  va_end(args);
}

void set_fatal_hook(FatalHook hook) { g_fatal_hook.store(hook); }

void fatal(const char* fmt, ...) {
  char body[2048];
  va_list args;
  va_start(args, fmt);
  vsnprintf(body, sizeof body, fmt, args);
  va_end(args);
  write(Level::kError, "%s", body);
  FatalHook hook = g_fatal_hook.load();
  if (hook != nullptr) hook(body);
  _exit(1);
}

}  // namespace log
}  // namespace gasket
