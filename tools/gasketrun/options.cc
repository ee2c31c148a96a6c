// Command line of gasketrun / mpiexec / oshrun.
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/base/parse.h"
#include "tools/gasketrun/launcher.h"

namespace gasket::launcher {
namespace {

constexpr char kEnvTimeout[] = "GASKET_TIMEOUT";

Result<double> parse_seconds(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v) ||
      v < 0 || v > 1e7) {
    return invalid_argument("bad " + what + " '" + text +
                            "': expected a number of seconds (0 for none)");
  }
  return v;
}

}  // namespace

Result<CommandLine> parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  LaunchOptions& o = cl.options;
  if (const char* t = std::getenv(kEnvTimeout); t != nullptr && *t != '\0') {
    Result<double> v = parse_seconds(t, kEnvTimeout);
    if (!v.is_ok()) return v.status();
    o.timeout_seconds = *v;
  }
  bool have_n = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-' || arg == "-") break;  // the program
    std::string name = arg;
    std::string value;
    bool inline_value = false;
    if (arg.compare(0, 2, "--") == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
    }
    auto take_value = [&]() -> Status {
      if (inline_value) return Status::ok();
      if (i + 1 >= args.size()) return invalid_argument("option " + name + " needs a value");
      value = args[++i];
      return Status::ok();
    };
    auto no_value = [&]() -> Status {
      return inline_value ? invalid_argument("option " + name + " takes no value") : Status::ok();
    };
    Status s;
    if (name == "-h" || name == "--help") {
      cl.show_help = true;
      return cl;
    } else if (name == "-n" || name == "-np" || name == "--np" || name == "--n") {
      if (s = take_value(); !s.is_ok()) return s;
      Result<int64_t> n = parse_int(value, 1, kMaxPes);
      if (!n.is_ok()) {
        return invalid_argument("bad number of PEs '" + value + "' for " + name +
                                ": expected an integer from 1 to " + std::to_string(kMaxPes));
      }
      o.num_pes = static_cast<int>(*n);
      have_n = true;
    } else if (name == "--bind-to") {
      if (s = take_value(); !s.is_ok()) return s;
      if (value == "core") {
        o.bind = BindPolicy::kCore;
      } else if (value == "none") {
        o.bind = BindPolicy::kNone;
      } else {
        return invalid_argument("bad --bind-to '" + value + "': expected core or none");
      }
    } else if (name == "--pes-per-node") {
      if (s = take_value(); !s.is_ok()) return s;
      Result<int64_t> k = parse_int(value, 1, kMaxPes);
      if (!k.is_ok()) {
        return invalid_argument("bad --pes-per-node '" + value + "': expected an integer from 1 to " +
                                std::to_string(kMaxPes));
      }
      o.pes_per_node = static_cast<int>(*k);
    } else if (name == "--tag-output") {
      if (s = no_value(); !s.is_ok()) return s;
      o.tag_output = true;
    } else if (name == "-q" || name == "--quiet") {
      if (s = no_value(); !s.is_ok()) return s;
      o.quiet = true;
    } else if (name == "--timeout") {
      if (s = take_value(); !s.is_ok()) return s;
      Result<double> v = parse_seconds(value, "--timeout");
      if (!v.is_ok()) return v.status();
      o.timeout_seconds = *v;
    } else if (name == "--grace-period") {
      if (s = take_value(); !s.is_ok()) return s;
      Result<double> v = parse_seconds(value, "--grace-period");
      if (!v.is_ok()) return v.status();
      o.grace_seconds = *v;
    } else if (name == "--store-address") {
      if (s = take_value(); !s.is_ok()) return s;
      if (value.empty()) return invalid_argument("empty --store-address");
      o.store_address = value;
    } else {
      return invalid_argument("unknown option '" + arg + "'");
    }
  }
  if (!have_n) return invalid_argument("missing the number of PEs: give -n N");
  if (i >= args.size()) return invalid_argument("missing the program to run");
  o.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return cl;
}

std::string usage_text(const std::string& tool) {
  return "Usage: " + tool + " -n N [options] program [args...]\n"
         "Runs N processing elements (PEs) of a gasket program on this machine.\n"
         "\n"
         "Options:\n"
         "  -n N, -np N           number of PEs (1 to " + std::to_string(kMaxPes) + ")\n"
         "  --bind-to core|none   bind PE i to core i (default: core; nothing is bound when\n"
         "                        there are more PEs than cores)\n"
         "  --pes-per-node K      simulate nodes of K PEs: GASKET_NODE_NAME=<host>:<pe/K>\n"
         "  --tag-output          prefix every output line with \"[pe N] \"\n"
         "  --timeout S           end the job after S seconds (exit status 124; default:\n"
         "                        $GASKET_TIMEOUT, else none)\n"
         "  --grace-period S      seconds between SIGTERM and SIGKILL when ending (default 2)\n"
         "  --store-address ADDR  host or host:port the bootstrap store listens on\n"
         "                        (default 127.0.0.1, any free port)\n"
         "  -q, --quiet           hide notices (errors and the job summary are still shown)\n"
         "  -h, --help            show this text\n"
         "\n"
         "The first argument that is not an option (or the one after --) is the program.\n"
         "When a PE fails, aborts or exits without finalizing, the others are stopped and\n"
         "" + tool + " exits with that PE's status (128+signal for a signal). SIGINT, SIGTERM\n"
         "and SIGHUP are forwarded to the PEs. Files /dev/shm/gasket-<job>-* are removed\n"
         "at the end of every job.\n";
}

}  // namespace gasket::launcher
