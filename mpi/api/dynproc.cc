// MPI dynamic processes (MPI 4.1 chapter 11): spawn, ports (accept/connect), join, disconnect
// and the name service. Design (README.md "Dynamic processes", docs/LAUNCHING.md):
//  - Processes of another job are late peers of the core (core/am/stream_links.h): a PE number
//    from n_pes() on, local to each process, reached by a TCP link that carries the same packets
//    as the backend's active messages (the engine sends them everything eager).
//  - Every intercommunicator between jobs comes from one exchange between two roots: each root
//    gathers its group's members (job id, rank, link address) and a free context id, sends them
//    to the other root on the dynamic-process handler of the links, and broadcasts the answer to
//    its group. A member of this very job maps to its PE; any other one becomes a late peer.
//  - A port is "gasket-port:<link address of the opening process>:<serial>:<its job's secret>":
//    connect sends its root's members to that address (authenticated by the secret, so jobs of
//    separate launches meet); the process that opened the port answers from accept.
//  - MPI_Comm_spawn asks the launcher (bootstrap spawn) to start a job whose processes connect,
//    from MPI_Init, to a port the root opened for it (GASKET_JOB_PARENT_PORT).
//  - Names are kept by the first launcher's store, shared by every job it spawned.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/store_protocol.h"
#include "core/runtime.h"
#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/coll/agree.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
namespace protocol = gasket::bootstrap::protocol;
using gasket::Result;
using gasket::Status;
using gasket::StatusCode;

namespace gasket::mpi::api {

// The dynamic-process handler on the late peers' links (the engine's packets use kFirstClientHandler).
constexpr core::am::HandlerId kDynprocHandler = core::am::kFirstClientHandler + 1;
constexpr char kPortPrefix[] = "gasket-port:";

// What arrived on the dynamic-process handler: connect requests (for accept) and the answers to
// this process's connect requests.
struct Ports {
  struct Arrival {
    int pe;
    std::vector<std::string> fields;
  };
  std::mutex mutex;
  uint64_t serial = 0;
  std::set<std::string> open;  // port names opened here and not closed
  std::deque<Arrival> arrivals;
};

}  // namespace gasket::mpi::api

namespace {

using api::Ports;

gasket::core::Runtime& runtime() { return *gasket::core::Runtime::get(); }

// This process's ports, and the handler that fills them (installed on first use).
Ports& ports(Context& c) {
  if (!c.ports()) {
    auto p = std::make_shared<Ports>();
    c.ports() = p;
    runtime().late_peers().register_handler(api::kDynprocHandler, [p](int pe, const void* data, size_t len) {
      auto fields = protocol::decode_strings(std::string_view(static_cast<const char*>(data), len));
      if (!fields.is_ok() || fields->empty()) return;
      std::lock_guard<std::mutex> lock(p->mutex);
      if ((*fields)[0] == "connect" && (fields->size() < 2 || p->open.count((*fields)[1]) == 0)) {
        std::string why = fields->size() < 2 ? "a malformed request" : "port '" + (*fields)[1] + "' is not open";
        std::string refusal = protocol::encode_strings({"refuse", why});
        (void)runtime().late_peers().send(pe, api::kDynprocHandler, refusal.data(), refusal.size());
        return;
      }
      p->arrivals.push_back({pe, std::move(*fields)});
    });
  }
  return *c.ports();
}

// Waits for the first arrival that `wanted` accepts, and takes it.
Ports::Arrival wait_arrival(Context& c, Guard& g, const std::function<bool(const Ports::Arrival&)>& wanted) {
  Ports& p = ports(c);
  Ports::Arrival got;
  c.wait(g, [&] {
    runtime().progress();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = std::find_if(p.arrivals.begin(), p.arrivals.end(), wanted);
    if (it == p.arrivals.end()) return false;
    got = std::move(*it);
    p.arrivals.erase(it);
    return true;
  });
  return got;
}

// One member of a group, as the roots exchange it.
struct Member {
  char job[80];
  char address[48];
  char secret[80];  // its job's secret: what its link listener expects
  int32_t rank;
  int32_t reserved;
};

std::vector<std::string> member_fields(const std::vector<Member>& members) {
  std::vector<std::string> out;
  for (const Member& m : members) out.insert(out.end(), {m.job, m.address, m.secret, std::to_string(m.rank)});
  return out;
}

// Members from fields[first..]; false when malformed.
bool parse_members(const std::vector<std::string>& fields, size_t first, std::vector<Member>* out) {
  if (first > fields.size() || (fields.size() - first) % 4 != 0) return false;
  for (size_t i = first; i < fields.size(); i += 4) {
    Member m{};
    if (fields[i].size() >= sizeof m.job || fields[i + 1].size() >= sizeof m.address ||
        fields[i + 2].size() >= sizeof m.secret) {
      return false;
    }
    std::memcpy(m.job, fields[i].data(), fields[i].size());
    std::memcpy(m.address, fields[i + 1].data(), fields[i + 1].size());
    std::memcpy(m.secret, fields[i + 2].data(), fields[i + 2].size());
    m.rank = std::atoi(fields[i + 3].c_str());
    out->push_back(m);
  }
  return true;
}

Error this_member(Member* m, const char* call) {
  Result<std::string> address = runtime().late_peers().address();
  if (!address.is_ok()) return error(MPI_ERR_OTHER, "%s: %s", call, address.status().message().c_str());
  const std::string& job = runtime().bootstrap().job_id();
  *m = Member{};
  std::snprintf(m->job, sizeof m->job, "%s", job.c_str());
  std::snprintf(m->address, sizeof m->address, "%s", address->c_str());
  const std::string& secret = runtime().bootstrap().secret();
  if (secret.size() >= sizeof m->secret) {
    return error(MPI_ERR_OTHER, "%s: PE %d: the job secret has %zu characters (at most %zu cross jobs)", call,
                 gasket::my_pe(), secret.size(), sizeof m->secret - 1);
  }
  std::snprintf(m->secret, sizeof m->secret, "%s", secret.c_str());
  m->rank = gasket::my_pe();
  return Error::ok();
}

// The other group as seen from the root: its members and its free context, or an error.
struct RemoteGroup {
  Error error;
  uint32_t context = 0;
  std::vector<Member> members;
};
// Run by the root with its group's members and free context.
using RootExchange = std::function<RemoteGroup(const std::vector<Member>&, uint32_t)>;

// Collective over `local` (an intracommunicator): builds the intercommunicator to the group the
// root reaches through `exchange`.
Error join_groups(Context& c, Guard& g, const cm::Communicator& local, int root, const RootExchange& exchange,
                  MPI_Comm* out, const char* call) {
  Member me;
  Error e = this_member(&me, call);
  if (!e.is_ok()) return e;
  size_t size = static_cast<size_t>(local.size());
  std::vector<Member> members(size);
  e = gasket::mpi::coll::allgather_bytes(c, g, &me, sizeof me, members.data(), local);
  uint32_t mine = c.comms().next_context();
  std::vector<uint32_t> contexts(size);
  if (e.is_ok()) e = gasket::mpi::coll::allgather_bytes(c, g, &mine, sizeof mine, contexts.data(), local);
  if (!e.is_ok()) return e;
  uint32_t context = *std::max_element(contexts.begin(), contexts.end());
  // The root's outcome: {error class, context, remote size}, then the remote members.
  int32_t head[3] = {MPI_SUCCESS, 0, 0};
  RemoteGroup remote;
  if (local.rank == root) {
    remote = exchange(members, context);
    head[0] = remote.error.is_ok() ? MPI_SUCCESS : remote.error.error_class();
    head[1] = static_cast<int32_t>(std::max(context, remote.context));
    head[2] = static_cast<int32_t>(remote.members.size());
  }
  e = gasket::mpi::coll::bcast_bytes(c, g, head, sizeof head, root, local);
  if (!e.is_ok()) return e;
  if (head[0] != MPI_SUCCESS) {
    if (local.rank == root) return remote.error;
    return error(head[0], "%s: rank %d: the root (rank %d) failed to reach the other group", call, local.rank, root);
  }
  remote.members.resize(static_cast<size_t>(head[2]));
  e = gasket::mpi::coll::bcast_bytes(c, g, remote.members.data(),
                                     static_cast<int64_t>(remote.members.size() * sizeof(Member)), root, local);
  if (!e.is_ok()) return e;
  std::vector<int> pes;
  const std::string& job = runtime().bootstrap().job_id();
  for (const Member& m : remote.members) {
    if (job == m.job) {
      pes.push_back(m.rank);
      continue;
    }
    Result<int> pe = runtime().late_peers().add_peer(m.address, m.secret);
    if (!pe.is_ok()) {
      return error(MPI_ERR_OTHER, "%s: rank %d: cannot reach rank %d of job %s: %s", call, local.rank, m.rank, m.job,
                   pe.status().message().c_str());
    }
    c.engine().reach_late_peer(*pe);
    pes.push_back(*pe);
  }
  c.comms().use_context(static_cast<uint32_t>(head[1]));
  cm::Communicator n;
  n.context = static_cast<uint32_t>(head[1]);
  n.group = local.group;
  n.rank = local.rank;
  n.remote_group = std::make_shared<cm::Group>(cm::Group{std::move(pes)});
  n.errhandler = local.errhandler;
  *out = c.comms().add(std::move(n));
  return Error::ok();
}

// The root side of MPI_Comm_accept: waits for a connect request on `port` and answers it.
RemoteGroup accept_on(Context& c, Guard& g, const std::string& port, const std::vector<Member>& members,
                      uint32_t context) {
  Ports::Arrival a = wait_arrival(c, g, [&](const Ports::Arrival& x) {
    return x.fields.size() >= 3 && x.fields[0] == "connect" && x.fields[1] == port;
  });
  RemoteGroup remote;
  remote.context = static_cast<uint32_t>(std::strtoul(a.fields[2].c_str(), nullptr, 10));
  if (!parse_members(a.fields, 3, &remote.members)) {
    remote.error = error(MPI_ERR_PORT, "MPI_Comm_accept: a malformed connect request on port '%s'", port.c_str());
    return remote;
  }
  std::vector<std::string> answer{"accept", std::to_string(context)};
  std::vector<std::string> mine = member_fields(members);
  answer.insert(answer.end(), mine.begin(), mine.end());
  std::string bytes = protocol::encode_strings(answer);
  Status s = runtime().late_peers().send(a.pe, api::kDynprocHandler, bytes.data(), bytes.size());
  if (!s.is_ok()) remote.error = error(MPI_ERR_PORT, "MPI_Comm_accept: answering on port '%s': %s", port.c_str(), s.message().c_str());
  return remote;
}

// A port name's parts: "gasket-port:<address>:<serial>:<secret>" (address "" when it is not one of ours).
struct PortName {
  std::string address;
  std::string secret;
};
PortName parse_port(const std::string& port) {
  size_t plen = std::strlen(api::kPortPrefix);
  size_t secret_at = port.rfind(':');
  size_t serial_at = secret_at == std::string::npos || secret_at == 0 ? std::string::npos : port.rfind(':', secret_at - 1);
  if (port.compare(0, plen, api::kPortPrefix) != 0 || serial_at == std::string::npos || serial_at <= plen) return {};
  return {port.substr(plen, serial_at - plen), port.substr(secret_at + 1)};
}

// The root side of MPI_Comm_connect.
RemoteGroup connect_to(Context& c, Guard& g, const std::string& port, const std::vector<Member>& members,
                       uint32_t context, const char* call) {
  RemoteGroup remote;
  PortName name = parse_port(port);
  const std::string& address = name.address;
  if (address.empty()) {
    remote.error = error(MPI_ERR_PORT,
                         "%s: '%s' is not a port name (MPI_Open_port gives 'gasket-port:<host>:<port>:<n>:<secret>')",
                         call, port.c_str());
    return remote;
  }
  Result<int> pe = runtime().late_peers().add_peer(address, name.secret);
  if (!pe.is_ok()) {
    remote.error = error(MPI_ERR_PORT, "%s: port '%s' cannot be reached: %s", call, port.c_str(),
                         pe.status().message().c_str());
    return remote;
  }
  (void)ports(c);  // the answer arrives on the handler
  std::vector<std::string> request{"connect", port, std::to_string(context)};
  std::vector<std::string> mine = member_fields(members);
  request.insert(request.end(), mine.begin(), mine.end());
  std::string bytes = protocol::encode_strings(request);
  Status s = runtime().late_peers().send(*pe, api::kDynprocHandler, bytes.data(), bytes.size());
  if (!s.is_ok()) {
    remote.error = error(MPI_ERR_PORT, "%s: port '%s': %s", call, port.c_str(), s.message().c_str());
    return remote;
  }
  Ports::Arrival a = wait_arrival(c, g, [&](const Ports::Arrival& x) {
    return x.pe == *pe && !x.fields.empty() && (x.fields[0] == "accept" || x.fields[0] == "refuse");
  });
  if (a.fields[0] == "refuse") {
    remote.error = error(MPI_ERR_PORT, "%s: refused by the process at %s: %s", call, address.c_str(),
                         a.fields.size() > 1 ? a.fields[1].c_str() : "no reason");
    return remote;
  }
  remote.context = a.fields.size() > 1 ? static_cast<uint32_t>(std::strtoul(a.fields[1].c_str(), nullptr, 10)) : 0;
  if (!parse_members(a.fields, 2, &remote.members)) {
    remote.error = error(MPI_ERR_PORT, "%s: a malformed answer from port '%s'", call, port.c_str());
  }
  return remote;
}

std::string open_port(Context& c) {
  Ports& p = ports(c);
  Result<std::string> address = runtime().late_peers().address();
  if (!address.is_ok()) return "";
  std::lock_guard<std::mutex> lock(p.mutex);
  std::string name = api::kPortPrefix + *address + ":" + std::to_string(++p.serial) + ":" + runtime().bootstrap().secret();
  p.open.insert(name);
  return name;
}

void close_port(Context& c, const std::string& name) {
  Ports& p = ports(c);
  std::lock_guard<std::mutex> lock(p.mutex);
  p.open.erase(name);
}

// Checks shared by accept and connect; `local` receives a copy of the communicator.
Error check_collective(Context& c, MPI_Comm comm, int root, MPI_Comm* newcomm, const char* call,
                       cm::Communicator* local) {
  cm::Communicator* cmm;
  Error e = api::check_comm(c, comm, call, &cmm);
  if (!e.is_ok()) return e;
  if (cmm->is_inter()) return error(MPI_ERR_COMM, "%s: rank %d: comm is an intercommunicator", call, cmm->rank);
  if (root < 0 || root >= cmm->size()) {
    return error(MPI_ERR_ROOT, "%s: rank %d: root %d is out of range [0, %d)", call, cmm->rank, root, cmm->size());
  }
  if (newcomm == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: newcomm is NULL", call, cmm->rank);
  *local = *cmm;
  return Error::ok();
}

Error accept_or_connect(Context& c, Guard& g, bool accept, const char* port_name, MPI_Info info, int root,
                        MPI_Comm comm, MPI_Comm* newcomm, const char* call) {
  cm::Communicator local;
  Error e = check_collective(c, comm, root, newcomm, call, &local);
  if (!e.is_ok()) return e;
  *newcomm = MPI_COMM_NULL;
  // port_name and info are significant only at the root: its checks fail every member through
  // the root's outcome (an early return of the root alone would leave the others waiting).
  return join_groups(c, g, local, root, [&](const std::vector<Member>& members, uint32_t context) {
    RemoteGroup refused;
    refused.error = api::check_info(c, info, call);
    if (refused.error.is_ok() && port_name == nullptr) {
      refused.error = error(MPI_ERR_PORT, "%s: rank %d (root): port_name is NULL", call, local.rank);
    }
    if (!refused.error.is_ok()) return refused;
    std::string port = port_name;
    if (accept) {
      {
        std::lock_guard<std::mutex> lock(ports(c).mutex);
        if (ports(c).open.count(port) == 0) {
          refused.error = error(MPI_ERR_PORT, "%s: port '%s' was not opened by this process (MPI_Open_port)", call,
                                port.c_str());
          return refused;
        }
      }
      return accept_on(c, g, port, members, context);
    }
    return connect_to(c, g, port, members, context, call);
  }, newcomm, call);
}

// MPI_Comm_spawn(_multiple)'s arguments at the root, as the launcher takes them.
Error spawn_request(Context& c, int count, char* const commands[], char** const argvs[], const int maxprocs[],
                    const MPI_Info infos[], const char* call, gasket::bootstrap::SpawnRequest* request) {
  char host[256] = "localhost";
  (void)::gethostname(host, sizeof host - 1);
  for (int i = 0; i < count; ++i) {
    gasket::bootstrap::SpawnApp app;
    if (commands[i] == nullptr) return error(MPI_ERR_SPAWN, "%s: command %d is NULL", call, i);
    app.command = commands[i];
    if (maxprocs[i] < 1) return error(MPI_ERR_SPAWN, "%s: maxprocs %d of command '%s' is not positive", call, maxprocs[i], commands[i]);
    app.maxprocs = maxprocs[i];
    char* const* argv = argvs == nullptr ? nullptr : argvs[i];
    for (; argv != nullptr && *argv != nullptr; ++argv) app.args.push_back(*argv);
    MPI_Info info = infos == nullptr ? MPI_INFO_NULL : infos[i];
    Error e = api::check_info(c, info, call);
    if (!e.is_ok()) return e;
    if (info != MPI_INFO_NULL) {
      for (const auto& [key, value] : *c.find_info(info)) {
        if (key == "wdir") {
          app.wdir = value;
        } else if (key == "path") {
          app.path = value;
        } else if (key == "host" && value != "localhost" && value != "127.0.0.1" && value != host) {
          return error(MPI_ERR_SPAWN, "%s: host '%s' is not this machine ('%s'): gasketrun starts processes on one "
                       "machine; clusters go through Slurm/PMIx (docs/CLUSTER.md)", call, value.c_str(), host);
        }
        // "soft": every process asked for is started, which any soft range allows.
      }
    }
    request->apps.push_back(std::move(app));
  }
  return Error::ok();
}

int spawn(int count, char* const commands[], char** const argvs[], const int maxprocs[], const MPI_Info infos[],
          int root, MPI_Comm comm, MPI_Comm* intercomm, int errcodes[], const char* call) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator local;
    Error e = check_collective(c, comm, root, intercomm, call, &local);
    if (!e.is_ok()) return e;
    *intercomm = MPI_COMM_NULL;
    // The root's outcome is every member's: {error class, total processes}.
    int32_t outcome[2] = {MPI_SUCCESS, 0};
    std::string port;
    Error root_error;
    if (local.rank == root) {
      if (count < 1) root_error = error(MPI_ERR_ARG, "%s: count %d is not positive", call, count);
      if (root_error.is_ok() && (commands == nullptr || maxprocs == nullptr)) {
        root_error = error(MPI_ERR_ARG, "%s: the commands or maxprocs array is NULL", call);
      }
      gasket::bootstrap::SpawnRequest request;
      if (root_error.is_ok()) root_error = spawn_request(c, count, commands, argvs, maxprocs, infos, call, &request);
      if (root_error.is_ok()) {
        port = open_port(c);
        request.parent_port = port;
        Status s = port.empty() ? Status(StatusCode::kUnavailable, "no link address") : runtime().bootstrap().spawn(request);
        if (!s.is_ok()) {
          close_port(c, port);
          root_error = error(MPI_ERR_SPAWN, "%s: rank %d: %s", call, local.rank, s.message().c_str());
        }
      }
      for (int i = 0; maxprocs != nullptr && i < count; ++i) outcome[1] += std::max(maxprocs[i], 0);
      outcome[0] = root_error.is_ok() ? MPI_SUCCESS : root_error.error_class();
    }
    e = gasket::mpi::coll::bcast_bytes(c, g, outcome, sizeof outcome, root, local);
    if (!e.is_ok()) return e;
    if (outcome[0] == MPI_SUCCESS) {
      e = join_groups(c, g, local, root, [&](const std::vector<Member>& members, uint32_t context) {
        return accept_on(c, g, port, members, context);
      }, intercomm, call);
      if (local.rank == root) close_port(c, port);
    } else {
      e = local.rank == root ? root_error
                             : error(outcome[0], "%s: rank %d: the root (rank %d) could not spawn", call, local.rank, root);
    }
    // One code per process asked for: all started, or none (the launcher starts all or nothing).
    if (errcodes != MPI_ERRCODES_IGNORE) std::fill(errcodes, errcodes + outcome[1], e.is_ok() ? MPI_SUCCESS : outcome[0]);
    return e;
  });
}

}  // namespace

namespace gasket::mpi::api {

// From MPI_Init of a spawned process: the intercommunicator to the parents.
Error connect_to_parent() {
  const char* port = std::getenv(bootstrap::kEnvJobParentPort);
  if (port == nullptr || *port == '\0') return Error::ok();
  Context& c = context("MPI_Init");
  Guard g(c);
  cm::Communicator* world;
  Error e = check_comm(c, MPI_COMM_WORLD, "MPI_Init", &world);
  if (!e.is_ok()) return e;
  cm::Communicator local = *world;
  std::string name = port;
  e = join_groups(c, g, local, 0, [&](const std::vector<Member>& members, uint32_t context) {
    return connect_to(c, g, name, members, context, "MPI_Init (connecting to the parent job)");
  }, &c.parent(), "MPI_Init");
  if (!e.is_ok() || c.parent() == MPI_COMM_NULL) return e;
  // Naming Objects: the intercommunicator to the parents has the default name MPI_COMM_PARENT.
  c.comms().find(c.parent())->name = "MPI_COMM_PARENT";
  return e;
}

}  // namespace gasket::mpi::api

int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm* intercomm, int array_of_errcodes[]) {
  char* commands[] = {const_cast<char*>(command)};
  char** argvs[] = {argv};
  return spawn(1, commands, argvs, &maxprocs, &info, root, comm, intercomm, array_of_errcodes, "MPI_Comm_spawn");
}

int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm* intercomm, int array_of_errcodes[]) {
  return spawn(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm, intercomm,
               array_of_errcodes, "MPI_Comm_spawn_multiple");
}

int PMPI_Comm_get_parent(MPI_Comm* parent) {
  return api::call("MPI_Comm_get_parent", MPI_COMM_SELF, [&](Context& c, Guard&) -> Error {
    if (parent == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_get_parent: parent is NULL");
    // A parent communicator freed or disconnected by the program is gone.
    if (c.parent() != MPI_COMM_NULL && c.comms().find(c.parent()) == nullptr) c.parent() = MPI_COMM_NULL;
    *parent = c.parent();
    return Error::ok();
  });
}

int PMPI_Open_port(MPI_Info info, char* port_name) {
  return api::call("MPI_Open_port", MPI_COMM_SELF, [&](Context& c, Guard&) -> Error {
    Error e = api::check_info(c, info, "MPI_Open_port");
    if (!e.is_ok()) return e;
    if (port_name == nullptr) return error(MPI_ERR_ARG, "MPI_Open_port: port_name is NULL");
    std::string name = open_port(c);
    if (name.empty()) return error(MPI_ERR_OTHER, "MPI_Open_port: this process cannot listen for links");
    std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", name.c_str());
    return Error::ok();
  });
}

int PMPI_Close_port(const char* port_name) {
  return api::call("MPI_Close_port", MPI_COMM_SELF, [&](Context& c, Guard&) -> Error {
    if (port_name == nullptr) return error(MPI_ERR_PORT, "MPI_Close_port: port_name is NULL");
    std::lock_guard<std::mutex> lock(ports(c).mutex);
    if (ports(c).open.erase(port_name) == 0) {
      return error(MPI_ERR_PORT, "MPI_Close_port: port '%s' is not open in this process", port_name);
    }
    return Error::ok();
  });
}

int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_accept", comm, [&](Context& c, Guard& g) {
    return accept_or_connect(c, g, true, port_name, info, root, comm, newcomm, "MPI_Comm_accept");
  });
}

int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_connect", comm, [&](Context& c, Guard& g) {
    return accept_or_connect(c, g, false, port_name, info, root, comm, newcomm, "MPI_Comm_connect");
  });
}

int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  const char* call = "MPI_Comm_join";
  return api::call(call, MPI_COMM_SELF, [&](Context& c, Guard& g) -> Error {
    if (intercomm == nullptr) return error(MPI_ERR_ARG, "%s: intercomm is NULL", call);
    cm::Communicator* self;
    Error e = api::check_comm(c, MPI_COMM_SELF, call, &self);
    if (!e.is_ok()) return e;
    *intercomm = MPI_COMM_NULL;
    return join_groups(c, g, *self, 0, [&](const std::vector<Member>& members, uint32_t context) {
      // Both sides write their member and context, then read the other's (a socket buffers both).
      struct Offer {
        Member member;
        uint32_t context;
      } mine{members[0], context}, theirs{};
      RemoteGroup remote;
      auto move_all = [&](bool write, void* p) {
        size_t done = 0;
        while (done < sizeof(Offer)) {
          ssize_t n = write ? ::write(fd, static_cast<char*>(p) + done, sizeof(Offer) - done)
                            : ::read(fd, static_cast<char*>(p) + done, sizeof(Offer) - done);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) return false;
          done += static_cast<size_t>(n);
        }
        return true;
      };
      if (!move_all(true, &mine) || !move_all(false, &theirs)) {
        remote.error = error(MPI_ERR_ARG, "%s: fd %d is not a socket connected to a process calling MPI_Comm_join: %s",
                             call, fd, errno != 0 ? std::strerror(errno) : "end of file");
        return remote;
      }
      theirs.member.job[sizeof theirs.member.job - 1] = '\0';
      theirs.member.address[sizeof theirs.member.address - 1] = '\0';
      remote.context = theirs.context;
      remote.members.push_back(theirs.member);
      return remote;
    }, intercomm, call);
  });
}

int PMPI_Comm_disconnect(MPI_Comm* comm) {
  const char* call = "MPI_Comm_disconnect";
  MPI_Comm handle = comm != nullptr ? *comm : MPI_COMM_NULL;
  int rc = api::call(call, handle, [&](Context& c, Guard&) -> Error {
    if (comm == nullptr) return error(MPI_ERR_ARG, "%s: comm is NULL", call);
    cm::Communicator* cmm;
    Error e = api::check_comm(c, *comm, call, &cmm);
    if (!e.is_ok()) return e;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
      return error(MPI_ERR_COMM, "%s: rank %d: %s cannot be disconnected", call, cmm->rank,
                   *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    }
    return Error::ok();
  });
  if (rc != MPI_SUCCESS) return rc;
  // Every member's pending communication on comm is complete once all have entered the barrier
  // (the standard asks the user to complete its requests first; ours finish before the barrier's).
  rc = PMPI_Barrier(*comm);
  if (rc != MPI_SUCCESS) return rc;
  Context& c = api::context(call);
  {
    Guard g(c);
    if (c.parent() == *comm) c.parent() = MPI_COMM_NULL;
  }
  return PMPI_Comm_free(comm);
}

int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  return api::call("MPI_Publish_name", MPI_COMM_SELF, [&](Context& c, Guard&) -> Error {
    Error e = api::check_info(c, info, "MPI_Publish_name");
    if (!e.is_ok()) return e;
    if (service_name == nullptr || port_name == nullptr) {
      return error(MPI_ERR_ARG, "MPI_Publish_name: service_name or port_name is NULL");
    }
    Status s = runtime().bootstrap().publish_name(service_name, port_name);
    if (!s.is_ok()) return error(MPI_ERR_SERVICE, "MPI_Publish_name: %s", s.message().c_str());
    return Error::ok();
  });
}

int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  return api::call("MPI_Lookup_name", MPI_COMM_SELF, [&](Context& c, Guard&) -> Error {
    Error e = api::check_info(c, info, "MPI_Lookup_name");
    if (!e.is_ok()) return e;
    if (service_name == nullptr || port_name == nullptr) {
      return error(MPI_ERR_ARG, "MPI_Lookup_name: service_name or port_name is NULL");
    }
    Result<std::string> port = runtime().bootstrap().lookup_name(service_name);
    if (!port.is_ok()) return error(MPI_ERR_NAME, "MPI_Lookup_name: %s", port.status().message().c_str());
    std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port->c_str());
    return Error::ok();
  });
}

int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  return api::call("MPI_Unpublish_name", MPI_COMM_SELF, [&](Context& c, Guard&) -> Error {
    Error e = api::check_info(c, info, "MPI_Unpublish_name");
    if (!e.is_ok()) return e;
    if (service_name == nullptr || port_name == nullptr) {
      return error(MPI_ERR_ARG, "MPI_Unpublish_name: service_name or port_name is NULL");
    }
    Status s = runtime().bootstrap().unpublish_name(service_name);
    if (!s.is_ok()) return error(MPI_ERR_SERVICE, "MPI_Unpublish_name: %s", s.message().c_str());
    return Error::ok();
  });
}
