// A PE started by a PMIx server (Slurm's `srun --mpi=pmix`, prterun, Open MPI's mpirun, ...):
// rank, size and placement come from PMIx; the key-value exchange is PMIx_Put/Commit/Fence/Get.
//
// "Exchange only what is needed": fence() does not collect data (PMIX_COLLECT_DATA = false), so
// a get() of a peer's key is a per-peer fetch (PMIx direct modex) made when the core or a backend
// first needs that peer; placement comes from the job's node map, not from an exchange.
#include <sched.h>
#include <unistd.h>

#include <pmix.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "core/base/log.h"
#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/job_identity.h"
#include "core/bootstrap/name_table.h"
#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap::detail {
namespace {

// A get of a key its PE never puts must not hang the job forever.
constexpr int kGetTimeoutSeconds = 300;
// After PMIx_Abort the launcher kills the job; exit ourselves if it has not within this time.
constexpr int kAbortGraceSeconds = 10;
// Every gasket key lives under this prefix, away from PMIx's reserved "pmix." names.
constexpr char kKeyPrefix[] = "gasket.";
constexpr char kSecretKey[] = "secret";

std::string pmix_error(pmix_status_t rc) { return std::string(PMIx_Error_string(rc)) + " (" + std::to_string(rc) + ")"; }

// Job ids name /dev/shm files: the namespace with anything outside [A-Za-z0-9_.] replaced.
std::string job_id_from_namespace(const char* nspace) {
  std::string id = "p";
  for (const char* c = nspace; *c != '\0' && id.size() < 64; ++c) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '.';
    id += ok ? *c : '_';
  }
  return id;
}

class PmixBootstrap final : public Bootstrap {
 public:
  PmixBootstrap(const pmix_proc_t& me, int size, std::vector<int> node_of_pe, bool oversubscribed)
      : me_(me), size_(size), node_of_pe_(std::move(node_of_pe)), oversubscribed_(oversubscribed),
        job_id_(job_id_from_namespace(me.nspace)) {}

  int rank() const override { return static_cast<int>(me_.rank); }
  int size() const override { return size_; }
  const std::string& job_id() const override { return job_id_; }
  bool oversubscribed() const override { return oversubscribed_; }
  std::vector<int> node_of_pe() const override { return node_of_pe_; }

  // PE 0 publishes a random secret at start; the others fetch it from PE 0 only when something
  // (the tcp link, the late-peer links) first asks for it — possibly before PE 0 has published it
  // (get waits for it).
  const std::string& secret() const override {
    std::call_once(secret_once_, [this] {
      auto self = const_cast<PmixBootstrap*>(this);
      Result<std::string> s = self->get(0, kSecretKey);
      if (!s.is_ok()) log::fatal("%s", s.status().message().c_str());
      secret_ = s.value();
    });
    return secret_;
  }

  Status publish_secret() {
    Result<std::string> s = random_hex(16);
    if (!s.is_ok()) return s.status();
    Status st = put(kSecretKey, s.value());
    if (!st.is_ok()) return st;
    std::call_once(secret_once_, [&] { secret_ = s.value(); });
    // Committed at once: peers may fetch it before PE 0's first fence.
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return call_error("commit", rc);
    return Status::ok();
  }

  Status put(const std::string& key, const std::string& value) override {
    Result<std::string> k = pmix_key("put", key);
    if (!k.is_ok()) return k.status();
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = const_cast<char*>(value.data());
    v.data.bo.size = value.size();
    std::lock_guard<std::mutex> lock(mutex_);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.value().c_str(), &v);  // copies the value
    if (rc != PMIX_SUCCESS) return call_error("put(key '" + protocol::printable(key) + "')", rc);
    return Status::ok();
  }

  Status fence() override {
    std::lock_guard<std::mutex> lock(mutex_);
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return call_error("commit", rc);
    pmix_proc_t all;
    PMIX_PROC_CONSTRUCT(&all);
    std::memcpy(all.nspace, me_.nspace, sizeof all.nspace);
    all.rank = PMIX_RANK_WILDCARD;
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool collect = false;  // peers' data is fetched per peer, on first get
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) return call_error("fence", rc);
    return Status::ok();
  }

  Result<std::string> get(int pe, const std::string& key) override {
    std::string call = "get(pe " + std::to_string(pe) + ", key '" + protocol::printable(key) + "')";
    if (pe < 0 || pe >= size_) {
      return invalid_argument("PE " + std::to_string(rank()) + ": bootstrap " + call +
                              ": PE out of range: the job has " + std::to_string(size_) + " PEs");
    }
    Result<std::string> k = pmix_key("get", key);
    if (!k.is_ok()) return k.status();
    pmix_proc_t peer;
    PMIX_PROC_CONSTRUCT(&peer);
    std::memcpy(peer.nspace, me_.nspace, sizeof peer.nspace);
    peer.rank = static_cast<pmix_rank_t>(pe);
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    int timeout = kGetTimeoutSeconds;
    PMIx_Info_load(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_value_t* v = nullptr;
    // No lock: PMIx is thread-safe, and a get waiting for a slow peer must not block a put.
    // The interface's get waits until the key is there; Slurm's PMIx server answers a key the
    // peer has not committed yet NOT-FOUND at once instead of waiting (as it does for PE 0's
    // secret, which a backend may ask for before the first fence), so the get is repeated, 1 ms
    // growing to 50 ms apart, until the key arrives or the timeout.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kGetTimeoutSeconds);
    auto pause = std::chrono::milliseconds(1);
    pmix_status_t rc = PMIx_Get(&peer, k.value().c_str(), &info, 1, &v);
    while (rc == PMIX_ERR_NOT_FOUND && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
      rc = PMIx_Get(&peer, k.value().c_str(), &info, 1, &v);
    }
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
      return call_error(call + (rc == PMIX_ERR_TIMEOUT ? " (PE " + std::to_string(pe) + " did not put it within " +
                                                             std::to_string(kGetTimeoutSeconds) + " s)"
                                                       : std::string()),
                        rc);
    }
    std::string out;
    bool ok = v != nullptr && v->type == PMIX_BYTE_OBJECT;
    if (ok && v->data.bo.size > 0) out.assign(v->data.bo.bytes, v->data.bo.size);
    int type = v == nullptr ? -1 : v->type;
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
    if (!ok) {
      return Status(StatusCode::kInternal, "PE " + std::to_string(rank()) + ": bootstrap " + call +
                                               ": PMIx returned a value of type " + std::to_string(type) +
                                               ", not the byte object gasket puts");
    }
    return out;
  }

  [[noreturn]] void abort(int exit_code, const std::string& message) override {
    int code = report_abort(rank(), job_id_, exit_code, message);
    // Asks the launcher to end every process of the job; it reports the status as the job's.
    PMIx_Abort(code, message.c_str(), nullptr, 0);
    std::this_thread::sleep_for(std::chrono::seconds(kAbortGraceSeconds));
    _exit(code);
  }

  Status finalize() override {
    std::lock_guard<std::mutex> lock(mutex_);
    pmix_status_t rc = PMIx_Finalize(nullptr, 0);
    if (rc != PMIX_SUCCESS) return call_error("finalize", rc);
    return Status::ok();
  }

  // Dynamic processes through the PMIx server (PMIx_Spawn, PMIx_Publish/Lookup/Unpublish).
  // Slurm's server (22.05, srun --mpi=pmix) answers PMIX_ERR_NOT_SUPPORTED to all four: spawn is
  // then refused with that answer, and names go to the name directory (name_table.h), where the
  // jobs of one node (or of one shared GASKET_NAME_DIR) meet.
  Status spawn(const SpawnRequest& request) override {
    std::vector<pmix_app_t> apps(request.apps.size());
    Status st = Status::ok();
    for (size_t i = 0; i < apps.size() && st.is_ok(); ++i) {
      const SpawnApp& app = request.apps[i];
      PMIX_APP_CONSTRUCT(&apps[i]);
      Result<std::string> program = spawn_program(app);
      if (!program.is_ok()) {
        st = program.status();
        break;
      }
      apps[i].cmd = strdup(program->c_str());
      pmix_argv_append_nosize(&apps[i].argv, program->c_str());
      for (const std::string& arg : app.args) pmix_argv_append_nosize(&apps[i].argv, arg.c_str());
      std::string parent = std::string(kEnvJobParentPort) + "=" + request.parent_port;
      pmix_argv_append_nosize(&apps[i].env, parent.c_str());
      if (!app.wdir.empty()) apps[i].cwd = strdup(app.wdir.c_str());
      apps[i].maxprocs = app.maxprocs;
    }
    if (st.is_ok()) {
      char nspace[PMIX_MAX_NSLEN + 1] = "";
      pmix_status_t rc = PMIx_Spawn(nullptr, 0, apps.data(), apps.size(), nspace);
      if (rc != PMIX_SUCCESS) st = server_refusal("PMIx_Spawn", rc, "cannot start processes");
    }
    for (pmix_app_t& app : apps) PMIX_APP_DESTRUCT(&app);
    return st;
  }

  Status publish_name(const std::string& name, const std::string& port) override {
    if (!server_keeps_names_) return names_.publish(name, port);
    Result<std::string> key = service_key(name);
    if (!key.is_ok()) return key.status();
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, key->c_str(), port.c_str(), PMIX_STRING);
    pmix_status_t rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (no_name_service(rc)) return names_.publish(name, port);
    if (rc == PMIX_ERR_DUPLICATE_KEY) {
      return invalid_argument("the service name '" + protocol::printable(name) + "' is already published");
    }
    if (rc != PMIX_SUCCESS) return call_error("PMIx_Publish('" + protocol::printable(name) + "')", rc);
    return Status::ok();
  }

  Result<std::string> lookup_name(const std::string& name) override {
    if (!server_keeps_names_) return names_.lookup(name);
    Result<std::string> key = service_key(name);
    if (!key.is_ok()) return key.status();
    pmix_pdata_t found;
    PMIX_PDATA_CONSTRUCT(&found);
    PMIX_LOAD_KEY(found.key, key->c_str());
    pmix_status_t rc = PMIx_Lookup(&found, 1, nullptr, 0);
    std::string port;
    bool is_string = rc == PMIX_SUCCESS && found.value.type == PMIX_STRING && found.value.data.string != nullptr;
    if (is_string) port = found.value.data.string;
    PMIX_PDATA_DESTRUCT(&found);
    if (no_name_service(rc)) return names_.lookup(name);
    if (rc == PMIX_ERR_NOT_FOUND || (rc == PMIX_SUCCESS && !is_string)) {
      return invalid_argument("no service named '" + protocol::printable(name) + "' is published");
    }
    if (rc != PMIX_SUCCESS) return call_error("PMIx_Lookup('" + protocol::printable(name) + "')", rc);
    return port;
  }

  Status unpublish_name(const std::string& name) override {
    if (!server_keeps_names_) return names_.unpublish(name);
    Result<std::string> key = service_key(name);
    if (!key.is_ok()) return key.status();
    char* keys[] = {const_cast<char*>(key->c_str()), nullptr};
    pmix_status_t rc = PMIx_Unpublish(keys, nullptr, 0);
    if (no_name_service(rc)) return names_.unpublish(name);
    if (rc == PMIX_ERR_NOT_FOUND) return invalid_argument("no service named '" + protocol::printable(name) + "' is published");
    if (rc != PMIX_SUCCESS) return call_error("PMIx_Unpublish('" + protocol::printable(name) + "')", rc);
    return Status::ok();
  }

 private:
  // A PMIx server that has no name service: from then on the name directory serves this PE.
  bool no_name_service(pmix_status_t rc) {
    if (rc != PMIX_ERR_NOT_SUPPORTED && rc != PMIX_ERR_NOT_IMPLEMENTED) return false;
    server_keeps_names_ = false;
    GASKET_DEBUG("bootstrap: the PMIx server of namespace %s keeps no names (%s): using %s", me_.nspace,
                 pmix_error(rc).c_str(), "the name directory");
    return true;
  }

  Result<std::string> service_key(const std::string& name) const {
    if (name.empty() || name.size() > PMIX_MAX_KEYLEN || name.find('\0') != std::string::npos) {
      return invalid_argument("PE " + std::to_string(rank()) + ": the service name '" + protocol::printable(name) +
                              "' must be 1.." + std::to_string(PMIX_MAX_KEYLEN) + " characters without NUL under PMIx");
    }
    return name;
  }

  // The server's refusal of a dynamic-process request, with what it means when it has no such service.
  Status server_refusal(const std::string& call, pmix_status_t rc, const char* what) const {
    std::string why = rc == PMIX_ERR_NOT_SUPPORTED || rc == PMIX_ERR_NOT_IMPLEMENTED
                          ? std::string(": the PMIx server of this job ") + what +
                                " (Slurm's srun --mpi=pmix is one); start the job with gasketrun, or with a PMIx "
                                "launcher that spawns (PRRTE's prterun)"
                          : std::string();
    return Status(StatusCode::kUnavailable, "PE " + std::to_string(rank()) + ": " + call + " (PMIx namespace " +
                                                me_.nspace + ") failed: " + pmix_error(rc) + why);
  }

  Result<std::string> pmix_key(const char* call, const std::string& key) const {
    std::string k = kKeyPrefix + key;
    if (key.empty() || key.find('\0') != std::string::npos || k.size() > PMIX_MAX_KEYLEN) {
      return invalid_argument("PE " + std::to_string(rank()) + ": bootstrap " + call + "(key '" +
                              protocol::printable(key) + "'): a PMIx key must be 1.." +
                              std::to_string(PMIX_MAX_KEYLEN - sizeof kKeyPrefix + 1) +
                              " characters without NUL");
    }
    return k;
  }

  Status call_error(const std::string& call, pmix_status_t rc) const {
    return Status(StatusCode::kUnavailable, "PE " + std::to_string(rank()) + ": bootstrap (PMIx namespace " +
                                                me_.nspace + ") " + call + " failed: " + pmix_error(rc));
  }

  const pmix_proc_t me_;
  const int size_;
  const std::vector<int> node_of_pe_;
  const bool oversubscribed_;
  const std::string job_id_;
  std::mutex mutex_;
  mutable std::once_flag secret_once_;
  mutable std::string secret_;
  NameTable names_;                  // when the server keeps no names
  std::atomic<bool> server_keeps_names_{true};  // until it answers "not supported"
};

// A job-level value of the wildcard rank (job size, local size).
Result<uint32_t> job_uint32(const pmix_proc_t& me, const char* key) {
  pmix_proc_t wild;
  PMIX_PROC_CONSTRUCT(&wild);
  std::memcpy(wild.nspace, me.nspace, sizeof wild.nspace);
  wild.rank = PMIX_RANK_WILDCARD;
  pmix_value_t* v = nullptr;
  pmix_status_t rc = PMIx_Get(&wild, key, nullptr, 0, &v);
  if (rc != PMIX_SUCCESS || v == nullptr) {
    return Status(StatusCode::kUnavailable, std::string("bootstrap: PMIx_Get(") + key + ") of namespace " + me.nspace +
                                                " failed: " + pmix_error(rc));
  }
  uint32_t out = 0;
  bool ok = true;
  switch (v->type) {
    case PMIX_UINT32: out = v->data.uint32; break;
    case PMIX_UINT16: out = v->data.uint16; break;
    case PMIX_INT: out = static_cast<uint32_t>(v->data.integer); break;
    case PMIX_UINT64: out = static_cast<uint32_t>(v->data.uint64); break;
    default: ok = false;
  }
  PMIX_VALUE_RELEASE(v);
  if (!ok) return Status(StatusCode::kInternal, std::string("bootstrap: PMIx value ") + key + " has an unexpected type");
  return out;
}

// Node index of every rank from the launcher's node map (no exchange): nodes sorted by name.
Result<std::vector<int>> placement(const pmix_proc_t& me, int size) {
  char* list = nullptr;
  pmix_status_t rc = PMIx_Resolve_nodes(me.nspace, &list);
  if (rc != PMIX_SUCCESS || list == nullptr) {
    return Status(StatusCode::kUnavailable, std::string("bootstrap: PMIx_Resolve_nodes(") + me.nspace +
                                                ") failed: " + pmix_error(rc));
  }
  std::set<std::string> nodes;
  std::stringstream in(list);
  free(list);
  for (std::string node; std::getline(in, node, ',');) {
    if (!node.empty()) nodes.insert(node);
  }
  std::vector<int> node_of(static_cast<size_t>(size), -1);
  int index = 0;
  for (const std::string& node : nodes) {
    pmix_proc_t* procs = nullptr;
    size_t n = 0;
    rc = PMIx_Resolve_peers(node.c_str(), me.nspace, &procs, &n);
    if (rc != PMIX_SUCCESS) {
      return Status(StatusCode::kUnavailable, "bootstrap: PMIx_Resolve_peers(" + node + ") failed: " + pmix_error(rc));
    }
    for (size_t i = 0; i < n; ++i) {
      if (procs[i].rank < static_cast<pmix_rank_t>(size)) node_of[procs[i].rank] = index;
    }
    if (procs != nullptr) PMIX_PROC_FREE(procs, n);
    ++index;
  }
  for (int pe = 0; pe < size; ++pe) {
    if (node_of[static_cast<size_t>(pe)] < 0) {
      return Status(StatusCode::kInternal, "bootstrap: the PMIx node map of namespace " + std::string(me.nspace) +
                                               " places no node for rank " + std::to_string(pe));
    }
  }
  return node_of;
}

}  // namespace

bool pmix_server_in_environment() {
  return std::getenv("PMIX_NAMESPACE") != nullptr && std::getenv("PMIX_RANK") != nullptr;
}

Result<std::unique_ptr<Bootstrap>> connect_pmix() {
  pmix_proc_t me;
  PMIX_PROC_CONSTRUCT(&me);
  pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    return Status(StatusCode::kUnavailable,
                  "bootstrap: PMIx_Init failed: " + pmix_error(rc) +
                      (pmix_server_in_environment() ? std::string()
                                                    : " (no PMIx server: PMIX_NAMESPACE/PMIX_RANK are not set; start "
                                                      "the program with srun --mpi=pmix or another PMIx launcher, "
                                                      "or unset GASKET_BOOTSTRAP=pmix)"));
  }
  auto fail = [](const Status& st) {
    PMIx_Finalize(nullptr, 0);
    return st;
  };
  Result<uint32_t> size = job_uint32(me, PMIX_JOB_SIZE);
  if (!size.is_ok()) return fail(size.status());
  if (size.value() < 1 || me.rank >= size.value()) {
    return fail(invalid_argument("bootstrap: PMIx gives rank " + std::to_string(me.rank) + " in a job of " +
                                 std::to_string(size.value()) + " processes"));
  }
  int n = static_cast<int>(size.value());
  Result<std::vector<int>> nodes = placement(me, n);
  if (!nodes.is_ok()) return fail(nodes.status());
  Result<uint32_t> local = job_uint32(me, PMIX_LOCAL_SIZE);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  bool oversubscribed = local.is_ok() && cpus > 0 && static_cast<long>(local.value()) > cpus;
  std::unique_ptr<PmixBootstrap> b(new PmixBootstrap(me, n, std::move(nodes.value()), oversubscribed));
  if (me.rank == 0) {
    Status st = b->publish_secret();
    if (!st.is_ok()) return fail(st);
  }
  GASKET_DEBUG("bootstrap: PMIx namespace %s, rank %u of %d%s", me.nspace, me.rank, n,
               oversubscribed ? ", oversubscribed" : "");
  return std::unique_ptr<Bootstrap>(std::move(b));
}

}  // namespace gasket::bootstrap::detail
