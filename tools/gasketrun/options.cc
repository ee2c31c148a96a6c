// Command line of gasketrun / mpiexec / oshrun: the names of both launcher families (MPICH's
// Hydra and Open MPI's ORTE/PRRTE) where they do not conflict. One table drives the parser and
// --help.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <utility>

#include "core/base/parse.h"
#include "tools/gasketrun/launcher.h"

namespace gasket::launcher {
namespace {

constexpr char kEnvTimeout[] = "GASKET_TIMEOUT";
constexpr char kOneMachine[] =
    "gasketrun runs the PEs of a job on this machine only; run on a cluster through "
    "Slurm/PMIx (srun --mpi=pmix, see docs/CLUSTER.md)";

// What the options build up while the command line is read; `app` is the current MPMD part.
struct ParseState {
  CommandLine* cl;
  AppContext* app;
  int pes_per_host = 0;  // -ppn / -npernode / --map-by ppr:N:node
  bool oversubscribe = false;
};

using Handler = std::function<Status(ParseState&, const std::string& name, const std::string& value)>;

struct OptionSpec {
  std::vector<const char*> names;
  const char* value;  // placeholder in --help; nullptr: a flag
  const char* help;
  Handler handle;
  bool per_part = false;  // applies to the MPMD part it appears in, not the whole job
  // Hydra's two-word form: `-genv VAR VALUE` is read as VAR=VALUE (a value with '=' is one word).
  bool variable_pair = false;
};

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

// An option taking one of a few words: sets *field to the value named, or says what was expected.
template <typename T>
Status choose(const std::string& name, const std::string& value,
              std::initializer_list<std::pair<const char*, T>> words, T* field) {
  std::string expected;
  for (const auto& [word, meaning] : words) {
    if (value == word) {
      *field = meaning;
      return Status::ok();
    }
    expected += (expected.empty() ? "" : " or ") + std::string(word);
  }
  return invalid_argument("bad " + name + " '" + value + "': expected " + expected);
}

Result<int> parse_count(const std::string& text, const std::string& what) {
  Result<int64_t> n = parse_int(text, 1, kMaxPes);
  if (!n.is_ok()) {
    return invalid_argument("bad " + what + " '" + text + "': expected an integer from 1 to " +
                            std::to_string(kMaxPes));
  }
  return static_cast<int>(*n);
}

// localhost, 127.x, ::1, or this machine's name (with or without its domain).
bool is_this_machine(const std::string& host) {
  if (host == "localhost" || host == "::1" || host.compare(0, 4, "127.") == 0 ||
      host == "localhost.localdomain") {
    return true;
  }
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return false;
  std::string self = name;
  auto short_name = [](const std::string& h) { return h.substr(0, h.find('.')); };
  return host == self || host == short_name(self) || short_name(host) == self;
}

// One host of a list: "name", "name:slots" (both families) or "name slots=N" (a hostfile line).
Status add_host(ParseState& st, const std::string& what, const std::string& entry) {
  std::string host = entry;
  std::string slots;
  size_t colon = entry.rfind(':');
  if (colon != std::string::npos && entry.find(':') == colon) {  // not an IPv6 address
    host = entry.substr(0, colon);
    slots = entry.substr(colon + 1);
  }
  size_t space = host.find_first_of(" \t");
  if (space != std::string::npos) {
    std::istringstream words(host.substr(space));
    host = host.substr(0, space);
    for (std::string word; words >> word;) {
      if (word.compare(0, 6, "slots=") == 0) {
        slots = word.substr(6);
      } else if (word.compare(0, 10, "max_slots=") != 0) {
        return invalid_argument("bad " + what + " entry '" + entry + "': expected host, host:slots or host slots=N");
      }
    }
  }
  if (host.empty()) return invalid_argument("bad " + what + " entry '" + entry + "': no host name");
  if (!is_this_machine(host)) {
    return invalid_argument(what + " names host '" + host + "', which is not this machine: " + kOneMachine);
  }
  if (!slots.empty()) {
    Result<int> n = parse_count(slots, "slot count in " + what + " entry '" + entry + "'");
    if (!n.is_ok()) return n.status();
    st.cl->options.slots += *n;
  }
  return Status::ok();
}

Status add_host_list(ParseState& st, const std::string& name, const std::string& list) {
  std::string entry;
  for (std::istringstream in(list); std::getline(in, entry, ',');) {
    if (Status s = add_host(st, name, entry); !s.is_ok()) return s;
  }
  return Status::ok();
}

Status add_hostfile(ParseState& st, const std::string& name, const std::string& path) {
  std::ifstream in(path);
  if (!in) return invalid_argument("cannot read " + name + " '" + path + "': " + std::strerror(errno));
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (Status s = add_host(st, name + " '" + path + "'", line); !s.is_ok()) return s;
  }
  return Status::ok();
}

// VAR=VALUE, or VAR alone for the launcher's own value.
Status add_variable(std::vector<std::string>* env, const std::string& name, const std::string& spec) {
  size_t eq = spec.find('=');
  std::string var = spec.substr(0, eq);
  if (var.empty() || var.find_first_of(" \t") != std::string::npos) {
    return invalid_argument("bad " + name + " '" + spec + "': expected VAR or VAR=VALUE");
  }
  if (eq != std::string::npos) {
    env->push_back(spec);
    return Status::ok();
  }
  const char* value = std::getenv(var.c_str());
  if (value == nullptr) {
    return invalid_argument(name + " " + var + ": " + var + " is not set in the launcher's environment");
  }
  env->push_back(var + "=" + value);
  return Status::ok();
}

Status set_pes_per_host(ParseState& st, const std::string& name, const std::string& value) {
  Result<int> k = parse_count(value, name);
  if (!k.is_ok()) return k.status();
  st.pes_per_host = *k;
  return Status::ok();
}

// A handler storing a number of seconds in `field` of the options.
Handler seconds_option(double LaunchOptions::*field) {
  return [field](ParseState& st, const std::string& name, const std::string& v) -> Status {
    Result<double> s = parse_seconds(v, name);
    if (!s.is_ok()) return s.status();
    st.cl->options.*field = *s;
    return Status::ok();
  };
}

// A handler for a flag that sets `field` of the options.
Handler flag_option(bool LaunchOptions::*field) {
  return [field](ParseState& st, const std::string&, const std::string&) {
    st.cl->options.*field = true;
    return Status::ok();
  };
}

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = {
      {{"-n", "-np", "--n", "--np"}, "N", "number of PEs of this part of the command line (1 to 4096)",
       [](ParseState& st, const std::string& name, const std::string& v) -> Status {
         Result<int64_t> n = parse_int(v, 1, kMaxPes);
         if (!n.is_ok()) {
           return invalid_argument("bad number of PEs '" + v + "' for " + name +
                                   ": expected an integer from 1 to " + std::to_string(kMaxPes));
         }
         st.app->num_pes = static_cast<int>(*n);
         return Status::ok();
       },
       true},
      {{"-host", "-hosts", "--host"}, "H[:S],...", "hosts, each with S slots; every host must be this machine",
       add_host_list},
      {{"-hostfile", "-f", "--hostfile", "-machinefile", "--machinefile"}, "FILE",
       "a host per line: 'host', 'host:S' or 'host slots=S'", add_hostfile},
      {{"-ppn", "-npernode", "--npernode"}, "K", "K PEs per host (the default -n when none is given)",
       set_pes_per_host},
      {{"--map-by", "-map-by"}, "ppr:K:node", "K PEs per node, as -ppn K",
       [](ParseState& st, const std::string& name, const std::string& v) -> Status {
         const std::string prefix = "ppr:";
         size_t colon = v.rfind(':');
         if (v.compare(0, prefix.size(), prefix) != 0 || colon == std::string::npos ||
             v.substr(colon) != ":node") {
           return invalid_argument("bad " + name + " '" + v + "': only ppr:K:node is supported");
         }
         return set_pes_per_host(st, name + " ppr", v.substr(prefix.size(), colon - prefix.size()));
       }},
      {{"--pes-per-node"}, "K", "simulate nodes of K PEs: GASKET_NODE_NAME=<host>:<pe/K>",
       [](ParseState& st, const std::string& name, const std::string& v) -> Status {
         Result<int> k = parse_count(v, name);
         if (!k.is_ok()) return k.status();
         st.cl->options.pes_per_node = *k;
         return Status::ok();
       }},
      {{"-genv"}, "VAR=VAL|VAR VAL", "set VAR in every PE",
       [](ParseState& st, const std::string& name, const std::string& v) {
         return add_variable(&st.cl->options.env, name, v);
       },
       false, true},
      {{"-x", "--x"}, "VAR[=VAL]", "set VAR in every PE (VAR alone: the launcher's value)",
       [](ParseState& st, const std::string& name, const std::string& v) {
         return add_variable(&st.cl->options.env, name, v);
       }},
      {{"-env"}, "VAR=VAL|VAR VAL", "set VAR in the PEs of this part of the command line",
       [](ParseState& st, const std::string& name, const std::string& v) {
         return add_variable(&st.app->env, name, v);
       },
       true, true},
      {{"-genvlist", "--genvlist"}, "V1,V2", "pass these variables with the launcher's values",
       [](ParseState& st, const std::string& name, const std::string& v) -> Status {
         std::string var;
         for (std::istringstream in(v); std::getline(in, var, ',');) {
           if (Status s = add_variable(&st.cl->options.env, name, var); !s.is_ok()) return s;
         }
         return Status::ok();
       }},
      {{"-wdir", "--wdir", "-wd", "--wd"}, "DIR", "working directory of this part's PEs",
       [](ParseState& st, const std::string& name, const std::string& v) -> Status {
         struct stat info;
         if (::stat(v.c_str(), &info) != 0) {
           return invalid_argument("bad " + name + " '" + v + "': " + std::strerror(errno));
         }
         if (!S_ISDIR(info.st_mode)) return invalid_argument("bad " + name + " '" + v + "': not a directory");
         st.app->wdir = v;
         return Status::ok();
       },
       true},
      {{"-bind-to", "--bind-to"}, "core|none", "bind PE i to core i (default core; past the cores PE i "
       "goes to core i mod cores when the PEs divide evenly, else nothing is bound)",
       [](ParseState& st, const std::string& name, const std::string& v) {
         return choose(name, v, {{"core", BindPolicy::kCore}, {"none", BindPolicy::kNone}}, &st.cl->options.bind);
       }},
      {{"-session", "--session"}, "auto|pe|launcher", "pe: every PE leads a session of its own (as "
       "Hydra starts its ranks: with the kernel's autogroup scheduling a PE then competes for the CPU "
       "as a session, not as one process of the launcher's session); launcher: the PEs stay in the "
       "launcher's session; auto (default): pe while the PEs fit the cores, else launcher",
       [](ParseState& st, const std::string& name, const std::string& v) {
         return choose(name, v, {{"auto", SessionPolicy::kAuto}, {"pe", SessionPolicy::kPe},
                                 {"launcher", SessionPolicy::kLauncher}}, &st.cl->options.session);
       }},
      {{"--oversubscribe", "-oversubscribe"}, nullptr, "allow more PEs than the host list's slots",
       [](ParseState& st, const std::string&, const std::string&) {
         st.oversubscribe = true;
         return Status::ok();
       }},
      {{"--tag-output", "-tag-output", "-l", "--label", "-prepend-rank"}, nullptr,
       "prefix every output line with \"[pe N] \"", flag_option(&LaunchOptions::tag_output)},
      {{"--timeout", "-timeout"}, "S", "end the job after S seconds (exit 124; default $GASKET_TIMEOUT)",
       seconds_option(&LaunchOptions::timeout_seconds)},
      {{"--grace-period"}, "S", "seconds between SIGTERM and SIGKILL when ending (default 2)",
       seconds_option(&LaunchOptions::grace_seconds)},
      {{"--store-address"}, "ADDR", "host or host:port of the bootstrap store (default 127.0.0.1)",
       [](ParseState& st, const std::string& name, const std::string& v) -> Status {
         if (v.empty()) return invalid_argument("empty " + name);
         st.cl->options.store_address = v;
         return Status::ok();
       }},
      {{"-q", "--quiet"}, nullptr, "hide notices (errors and the job summary are still shown)",
       flag_option(&LaunchOptions::quiet)},
      {{"-h", "--help", "-help"}, nullptr, "show this text",
       [](ParseState& st, const std::string&, const std::string&) {
         st.cl->show_help = true;
         return Status::ok();
       }},
  };
  return table;
}

const OptionSpec* find_option(const std::string& name) {
  for (const OptionSpec& spec : option_table()) {
    for (const char* n : spec.names) {
      if (name == n) return &spec;
    }
  }
  return nullptr;
}

// The number of PEs of every part, once the whole line is read: -ppn is the default -n, and the
// total must fit this one machine's share of the host list.
Status settle_counts(ParseState& st) {
  LaunchOptions& o = st.cl->options;
  o.num_pes = 0;
  for (size_t a = 0; a < o.apps.size(); ++a) {
    AppContext& app = o.apps[a];
    if (app.num_pes == 0) app.num_pes = st.pes_per_host > 0 ? st.pes_per_host : o.slots;
    if (app.num_pes == 0) {
      return invalid_argument("missing the number of PEs" +
                              (o.apps.size() > 1 ? " of part " + std::to_string(a) : std::string()) +
                              ": give -n N");
    }
    o.num_pes += app.num_pes;
  }
  if (o.num_pes > kMaxPes) {
    return invalid_argument("too many PEs: " + std::to_string(o.num_pes) + " in all, at most " +
                            std::to_string(kMaxPes));
  }
  if (st.pes_per_host > 0 && o.num_pes > st.pes_per_host) {
    return invalid_argument(std::to_string(o.num_pes) + " PEs at " + std::to_string(st.pes_per_host) +
                            " per node need more than one node: " + kOneMachine +
                            " (--pes-per-node K simulates nodes here)");
  }
  if (o.slots > 0 && o.num_pes > o.slots && !st.oversubscribe) {
    return invalid_argument(std::to_string(o.num_pes) + " PEs but the host list has " +
                            std::to_string(o.slots) + " slots: add --oversubscribe, or more slots");
  }
  return Status::ok();
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
  o.apps.emplace_back();
  ParseState st{&cl, &o.apps.back()};
  size_t i = 0;
  while (i < args.size()) {
    const std::string& arg = args[i];
    bool program_next = arg == "--";
    if (program_next) ++i;
    if (program_next || arg.empty() || arg[0] != '-' || arg == "-") {
      // The program and its arguments, up to the next ':' (MPMD) or the end.
      size_t end = i;
      while (end < args.size() && args[end] != ":") ++end;
      if (end == i) return invalid_argument("missing the program to run");
      st.app->command.assign(args.begin() + static_cast<std::ptrdiff_t>(i),
                             args.begin() + static_cast<std::ptrdiff_t>(end));
      i = end;
      if (i < args.size()) {  // ':' starts the next part
        ++i;
        o.apps.emplace_back();
        st.app = &o.apps.back();
      }
      continue;
    }
    std::string name = arg;
    std::string value;
    bool inline_value = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    const OptionSpec* spec = find_option(name);
    if (spec == nullptr) return invalid_argument("unknown option '" + arg + "'");
    if (spec->value == nullptr && inline_value) return invalid_argument("option " + name + " takes no value");
    if (spec->value != nullptr && !inline_value) {
      if (i + 1 >= args.size()) return invalid_argument("option " + name + " needs a value");
      value = args[++i];
      if (spec->variable_pair && value.find('=') == std::string::npos) {
        if (i + 1 >= args.size()) return invalid_argument("option " + name + " " + value + " needs a value");
        value += "=" + args[++i];
      }
    }
    if (Status s = spec->handle(st, name, value); !s.is_ok()) return s;
    if (cl.show_help) return cl;
    ++i;
  }
  if (st.app->command.empty()) return invalid_argument("missing the program to run");
  if (Status s = settle_counts(st); !s.is_ok()) return s;
  return cl;
}

std::string usage_text(const std::string& tool) {
  std::string text = "Usage: " + tool + " -n N [options] program [args...] [: -n M [options] program2 ...]\n"
                     "Runs the processing elements (PEs) of a gasket program on this machine.\n"
                     "Parts separated by ':' run different programs in one job (MPMD); part k's\n"
                     "PEs see MPI_APPNUM = k. Options marked * apply to the part they appear in.\n"
                     "\nOptions:\n";
  for (const OptionSpec& spec : option_table()) {
    std::string names;
    for (const char* n : spec.names) names += (names.empty() ? "" : ", ") + std::string(n);
    if (spec.value != nullptr) names += std::string(" ") + spec.value;
    text += "  " + names + "\n      " + (spec.per_part ? "* " : "") + spec.help + "\n";
  }
  text += "\nHost lists name this machine only (localhost, 127.x, its host name); for\n"
          "clusters use Slurm/PMIx (docs/CLUSTER.md). The first argument that is not an\n"
          "option (or the one after --) is the program.\n"
          "When a PE fails, aborts or exits without finalizing, the others are stopped and\n" +
          tool + " exits with that PE's status (128+signal for a signal). SIGINT, SIGTERM\n"
          "and SIGHUP are forwarded to the PEs. Files /dev/shm/gasket-<job>-* are removed\n"
          "at the end of every job.\n";
  return text;
}

}  // namespace gasket::launcher
