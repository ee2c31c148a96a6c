// C bindings of MPI sessions (MPI 4.1 section 11.3): MPI_Session_*, the process sets mpi://WORLD
// and mpi://SELF, MPI_Group_from_session_pset, MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups. A session holds a reference on the runtime context
// (Context::acquire), so sessions and the World model share one runtime.
//
// Communicators made from groups agree among the group's members over the bootstrap
// communicator (every process, context session::kBootstrapContext): MPI_Comm_create_group on it,
// with the string tag hashed to the messages' tag (MPI requires concurrent calls on overlapping
// groups to use different tags; different tags collide only if their 31-bit hashes do).
#include <strings.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/gasket.h"
#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/requests.h"
#include "mpi/bindings/large_count.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
namespace ss = gasket::mpi::session;

namespace {

constexpr MPI_Errhandler kNoHandler = -1;  // raise(): the object has no valid handler

// Raises `e` on the error handler `eh`, for the object `*handle` (a session, or MPI_COMM_NULL when
// a communicator could not be made): returns the code the call returns. No handler to raise it on
// (`eh` not one; an invalid session): the World model's MPI_COMM_SELF handler when MPI_Init ran
// (MPI 4.1 section 9.3), else the initial handler, MPI_ERRORS_ARE_FATAL.
int raise(Context& c, MPI_Errhandler eh, int handle, const Error& e) {
  int code = e.error_class();
  if (eh == MPI_ERRORS_RETURN) return code;
  cm::Errhandler* user = nullptr;
  if (eh != MPI_ERRORS_ARE_FATAL && eh != kNoHandler) {
    Guard g(c);
    if (!api::check_errhandler(c, eh, "").is_ok()) {
      g.unlock();
      return raise(c, kNoHandler, handle, e);
    }
    if (c.comms().lookup_errhandler(eh, "", &user).is_ok() && user->function != nullptr) {
      auto* function = reinterpret_cast<MPI_Session_errhandler_function*>(user->function);
      c.run_callback(g, [&] { function(&handle, &code); });
      return e.error_class();
    }
  }
  if (eh == kNoHandler && Context::state() == gasket::mpi::LibraryState::kInitialized) {
    return c.report(MPI_COMM_SELF, e);
  }
  std::string msg = "MPI error on PE " + std::to_string(gasket::my_pe()) + ": " + e.message();
  gasket::abort_job(code == 0 ? 1 : code, msg.c_str());
}

// The session's error handler (MPI_ERRORS_ARE_FATAL when `session` is not one).
MPI_Errhandler errhandler_of(Context& c, MPI_Session session) {
  Guard g(c);
  ss::Session* s = c.sessions().find(session);
  return s != nullptr ? s->errhandler : kNoHandler;
}

// Runs body(Context&, Guard&, Session&) -> Error under the lock; errors go to the session's handler.
template <typename Body>
int session_call(const char* name, MPI_Session session, Body body) {
  Context& c = api::context(name);
  Error e;
  {
    Guard g(c);
    ss::Session* s;
    e = c.sessions().lookup(session, name, &s);
    if (e.is_ok()) e = body(c, g, *s);
  }
  return e.is_ok() ? MPI_SUCCESS : raise(c, errhandler_of(c, session), session, e);
}

constexpr const char* kThreadLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                         "MPI_THREAD_MULTIPLE"};

// The thread level a session's info asks for ("thread_level"; MPI_THREAD_SINGLE without one).
Error thread_level_of(const gasket::mpi::Info& info, int* level) {
  *level = MPI_THREAD_SINGLE;
  for (const auto& [key, value] : info) {
    if (key != "thread_level") continue;
    for (int l = MPI_THREAD_SINGLE; l <= MPI_THREAD_MULTIPLE; ++l) {
      if (strcasecmp(value.c_str(), kThreadLevels[l]) == 0) *level = l;
    }
    if (strcasecmp(value.c_str(), kThreadLevels[*level]) != 0) {
      return error(MPI_ERR_INFO_VALUE, "MPI_Session_init: thread_level '%s' is not one of MPI_THREAD_SINGLE.."
                                       "MPI_THREAD_MULTIPLE", value.c_str());
    }
  }
  return Error::ok();
}

// The messages' tag of a string tag (FNV-1a, 31 bits: a valid tag).
int stringtag_tag(const char* stringtag) {
  uint32_t h = 2166136261u;
  for (const char* p = stringtag; *p != '\0'; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 16777619u;
  return static_cast<int>(h & 0x7fffffffu);
}

Error check_stringtag(const char* stringtag, const char* call) {
  if (stringtag == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: stringtag is NULL", call, gasket::my_pe());
  if (std::strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN) {
    return error(MPI_ERR_ARG, "%s: PE %d: stringtag is %zu characters (MPI_MAX_STRINGTAG_LEN is %d with the null)",
                 call, gasket::my_pe(), std::strlen(stringtag), MPI_MAX_STRINGTAG_LEN);
  }
  return Error::ok();
}

// The bootstrap communicator (made on first use: every process, context kBootstrapContext).
MPI_Comm bootstrap(Context& c) {
  ss::SessionTable& t = c.sessions();
  if (t.bootstrap == MPI_COMM_NULL) {
    cm::Communicator b;
    b.context = ss::kBootstrapContext;
    b.group = c.comms().find(MPI_COMM_WORLD)->group;
    b.rank = gasket::my_pe();
    b.errhandler = MPI_ERRORS_RETURN;
    b.name = "the sessions' bootstrap communicator";
    t.bootstrap = c.comms().add(std::move(b));
  }
  return t.bootstrap;
}

// Checks shared by the communicator constructors: the group (this process a member), the
// errhandler, the info, the string tag, the output; on success *pes is the group.
Error check_from_group(Context& c, MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler eh,
                       const void* out, const char* call, std::shared_ptr<const cm::Group>* members) {
  Error e = c.comms().lookup_group(group, call, members);
  if (e.is_ok()) e = check_stringtag(stringtag, call);
  if (e.is_ok()) e = api::check_info(c, info, call);
  if (e.is_ok()) e = api::check_errhandler(c, eh, call);
  if (!e.is_ok()) return e;
  if (out == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: the output communicator is NULL", call, gasket::my_pe());
  if (!(*members)->pes.empty() && (*members)->rank_of_pe(gasket::my_pe()) == MPI_UNDEFINED) {
    return error(MPI_ERR_GROUP, "%s: PE %d is not in the group (only its members call it)", call, gasket::my_pe());
  }
  return Error::ok();
}

// Gives the new communicator its error handler and hints.
int adopt(MPI_Comm comm, MPI_Errhandler eh, MPI_Info info) {
  int rc = PMPI_Comm_set_errhandler(comm, eh);
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = PMPI_Comm_set_info(comm, info);
  return rc;
}

}  // namespace

extern "C" {

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const char* call = "MPI_Session_init";
  Context& dormant = Context::dormant();
  gasket::mpi::Info hints;
  int level = MPI_THREAD_SINGLE;
  Error e;
  {
    Guard g(dormant);
    gasket::mpi::Info* in = info == MPI_INFO_NULL ? nullptr : dormant.find_info(info);
    if (info != MPI_INFO_NULL && in == nullptr) e = error(MPI_ERR_INFO, "%s: info %d is not an info object", call, info);
    if (in != nullptr) hints = *in;
    if (e.is_ok()) e = thread_level_of(hints, &level);
    if (e.is_ok() && session == nullptr) e = error(MPI_ERR_ARG, "%s: session is NULL", call);
  }
  int provided = level;
  if (e.is_ok()) e = Context::acquire(level, &provided, call);
  if (!e.is_ok()) {
    // Before the runtime started, only the predefined handlers exist.
    if (errhandler == MPI_ERRORS_RETURN) return e.error_class();
    if (Context::get() != nullptr) return raise(*Context::get(), errhandler, MPI_SESSION_NULL, e);
    fprintf(stderr, "MPI error: %s (%s)\n", e.message().c_str(), gasket::mpi::error_class_string(e.error_class()));
    exit(e.error_class());
  }
  Context& c = *Context::get();
  Guard g(c);
  e = api::check_errhandler(c, errhandler, call);
  if (!e.is_ok()) {
    g.unlock();
    Context::release();
    return raise(c, kNoHandler, MPI_SESSION_NULL, e);
  }
  ss::Session s;
  s.errhandler = errhandler;
  s.thread_level = provided;
  s.info = std::move(hints);
  *session = c.sessions().add(std::move(s));
  return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session* session) {
  const char* call = "MPI_Session_finalize";
  if (session == nullptr) return raise(api::context(call), kNoHandler, MPI_SESSION_NULL,
                                       error(MPI_ERR_ARG, "%s: session is NULL", call));
  int rc = session_call(call, *session, [&](Context& c, Guard&, ss::Session&) -> Error {
    c.sessions().remove(*session);
    return Error::ok();
  });
  if (rc != MPI_SUCCESS) return rc;
  *session = MPI_SESSION_NULL;
  Context::release();
  return MPI_SUCCESS;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  const char* call = "MPI_Session_get_num_psets";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session&) -> Error {
    Error e = api::check_info(c, info, call);
    if (!e.is_ok()) return e;
    if (npset_names == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: npset_names is NULL", call, gasket::my_pe());
    *npset_names = ss::kNumPsets;
    return Error::ok();
  });
}

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len, char* pset_name) {
  const char* call = "MPI_Session_get_nth_pset";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session&) -> Error {
    Error e = api::check_info(c, info, call);
    if (!e.is_ok()) return e;
    const char* name = ss::pset_name(n);
    if (name == nullptr) {
      return error(MPI_ERR_ARG, "%s: PE %d: n = %d is out of range (%d process sets)", call, gasket::my_pe(), n,
                   ss::kNumPsets);
    }
    if (pset_len == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: pset_len is NULL", call, gasket::my_pe());
    int needed = static_cast<int>(std::strlen(name)) + 1;
    if (*pset_len > 0) {  // 0: only the length is asked
      if (pset_name == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: pset_name is NULL", call, gasket::my_pe());
      int n_copy = std::min(*pset_len, needed) - 1;
      std::memcpy(pset_name, name, static_cast<size_t>(n_copy));
      pset_name[n_copy] = '\0';
    }
    *pset_len = needed;
    return Error::ok();
  });
}

int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  const char* call = "MPI_Session_get_pset_info";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session&) -> Error {
    std::vector<int> pes;
    if (pset_name == nullptr || !ss::pset_members(pset_name, gasket::my_pe(), gasket::n_pes(), &pes)) {
      return error(MPI_ERR_ARG, "%s: PE %d: '%s' is not a process set (mpi://WORLD, mpi://SELF)", call,
                   gasket::my_pe(), pset_name ? pset_name : "(null)");
    }
    if (info == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: info is NULL", call, gasket::my_pe());
    *info = c.add_info({{"mpi_size", std::to_string(pes.size())}});
    return Error::ok();
  });
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  const char* call = "MPI_Session_get_info";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session& s) -> Error {
    if (info_used == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: info_used is NULL", call, gasket::my_pe());
    gasket::mpi::Info used;
    for (const auto& kv : s.info) {
      if (kv.first != "thread_level") used.push_back(kv);
    }
    used.emplace_back("thread_level", kThreadLevels[s.thread_level]);  // the level provided
    *info_used = c.add_info(std::move(used));
    return Error::ok();
  });
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* function, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Session_create_errhandler";
  // Any time, MPI running or not (MPI 4.1 section 11.4.1): the table outlives the runtime.
  return api::info_call(call, [&](Context& cx, Guard&) -> Error {
    if (function == nullptr || errhandler == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    *errhandler = cx.errhandlers().add(reinterpret_cast<MPI_Comm_errhandler_function*>(function));
    return Error::ok();
  });
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  const char* call = "MPI_Session_set_errhandler";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session& s) -> Error {
    Error e = api::check_errhandler(c, errhandler, call);
    if (!e.is_ok()) return e;
    s.errhandler = errhandler;  // as communicators and windows: the handler's entry outlives its handle
    return Error::ok();
  });
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Session_get_errhandler";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session& s) -> Error {
    if (errhandler == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: errhandler is NULL", call, gasket::my_pe());
    *errhandler = s.errhandler;
    c.comms().retain_errhandler(*errhandler);  // the caller frees it (MPI_Errhandler_free)
    return Error::ok();
  });
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const char* call = "MPI_Session_call_errhandler";
  int rc = session_call(call, session, [](Context&, Guard&, ss::Session&) { return Error::ok(); });
  if (rc != MPI_SUCCESS) return rc;
  Context& c = api::context(call);
  raise(c, errhandler_of(c, session), session,
        error(errorcode, "%s: error code %d raised by the application", call, errorcode));
  return MPI_SUCCESS;
}

int PMPI_Session_flush_buffer(MPI_Session session) {
  return session_call("MPI_Session_flush_buffer", session, [&](Context& c, Guard& g, ss::Session&) {
    return api::flush_buffer(c, g, gasket::mpi::BsendBuffers::of_session(session));
  });
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  const char* call = "MPI_Session_iflush_buffer";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session&) {
    return api::iflush_buffer(c, gasket::mpi::BsendBuffers::of_session(session), request, call);
  });
}

int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  const char* call = "MPI_Group_from_session_pset";
  return session_call(call, session, [&](Context& c, Guard&, ss::Session&) -> Error {
    auto group = std::make_shared<cm::Group>();
    if (pset_name == nullptr || !ss::pset_members(pset_name, gasket::my_pe(), gasket::n_pes(), &group->pes)) {
      return error(MPI_ERR_ARG, "%s: PE %d: '%s' is not a process set (mpi://WORLD, mpi://SELF)", call,
                   gasket::my_pe(), pset_name ? pset_name : "(null)");
    }
    if (newgroup == nullptr) return error(MPI_ERR_ARG, "%s: PE %d: newgroup is NULL", call, gasket::my_pe());
    group->session = session;
    *newgroup = c.comms().add_group(std::move(group));
    return Error::ok();
  });
}

int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                               MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_from_group";
  Context& c = api::context(call);
  MPI_Comm boot;
  MPI_Session session;
  {
    Guard g(c);
    std::shared_ptr<const cm::Group> members;
    Error e = check_from_group(c, group, stringtag, info, errhandler, newcomm, call, &members);
    if (!e.is_ok()) {
      g.unlock();
      return raise(c, errhandler, MPI_COMM_NULL, e);
    }
    if (members->pes.empty()) {  // MPI_GROUP_EMPTY: a local call giving MPI_COMM_NULL (MPI 4.1 section 11.3.3)
      *newcomm = MPI_COMM_NULL;
      return MPI_SUCCESS;
    }
    boot = bootstrap(c);
    session = members->session;
  }
  int rc = PMPI_Comm_create_group(boot, group, stringtag_tag(stringtag), newcomm);
  if (rc == MPI_SUCCESS) {  // its buffered sends use the session's buffer when it has none
    Guard g(c);
    if (cm::Communicator* made = c.comms().find(*newcomm)) made->session = session;
  }
  if (rc == MPI_SUCCESS) rc = adopt(*newcomm, errhandler, info);
  if (rc != MPI_SUCCESS) {
    return raise(c, errhandler, MPI_COMM_NULL, error(rc, "%s: PE %d: making the communicator of group %d failed",
                                                     call, gasket::my_pe(), group));
  }
  return MPI_SUCCESS;
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                     int remote_leader, const char* stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create_from_groups";
  Context& c = api::context(call);
  MPI_Comm boot;
  int remote_leader_pe = 0;
  {
    Guard g(c);
    std::shared_ptr<const cm::Group> local, remote;
    Error e = check_from_group(c, local_group, stringtag, info, errhandler, newintercomm, call, &local);
    if (e.is_ok()) e = c.comms().lookup_group(remote_group, call, &remote);
    if (e.is_ok() && (local_leader < 0 || local_leader >= static_cast<int>(local->pes.size()))) {
      e = error(MPI_ERR_RANK, "%s: PE %d: local leader %d is out of range (the local group has %zu processes)", call,
                gasket::my_pe(), local_leader, local->pes.size());
    }
    if (e.is_ok() && (remote_leader < 0 || remote_leader >= static_cast<int>(remote->pes.size()))) {
      e = error(MPI_ERR_RANK, "%s: PE %d: remote leader %d is out of range (the remote group has %zu processes)",
                call, gasket::my_pe(), remote_leader, remote->pes.size());
    }
    for (int pe : e.is_ok() ? remote->pes : std::vector<int>{}) {
      if (local->rank_of_pe(pe) != MPI_UNDEFINED) {
        e = error(MPI_ERR_GROUP, "%s: PE %d: PE %d is in both groups (they must be disjoint)", call,
                  gasket::my_pe(), pe);
        break;
      }
    }
    if (!e.is_ok()) {
      g.unlock();
      return raise(c, errhandler, MPI_COMM_NULL, e);
    }
    boot = bootstrap(c);
    remote_leader_pe = remote->pes[static_cast<size_t>(remote_leader)];  // its rank in the bootstrap
  }
  int tag = stringtag_tag(stringtag);
  MPI_Comm local_comm = MPI_COMM_NULL;
  int rc = PMPI_Comm_create_group(boot, local_group, tag, &local_comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Intercomm_create(local_comm, local_leader, boot, remote_leader_pe, tag, newintercomm);
  if (local_comm != MPI_COMM_NULL) (void)PMPI_Comm_free(&local_comm);
  if (rc == MPI_SUCCESS) rc = adopt(*newintercomm, errhandler, info);
  if (rc != MPI_SUCCESS) {
    return raise(c, errhandler, MPI_COMM_NULL, error(rc, "%s: PE %d: making the intercommunicator failed", call,
                                                     gasket::my_pe()));
  }
  return MPI_SUCCESS;
}

}  // extern "C"

// The session's buffer for buffered sends (buffers.cc shares the detach).
namespace gasket::mpi::large_count {

int Session_attach_buffer(const char* call, MPI_Session session, void* buffer, MPI_Count size) {
  return session_call(call, session, [&](Context& c, Guard&, ss::Session&) {
    return c.bsend_buffers().attach(BsendBuffers::of_session(session), buffer, size, call);
  });
}

int Session_detach_buffer(const char* call, MPI_Session session, void* buffer_addr, MPI_Count* size) {
  return session_call(call, session, [&](Context& c, Guard& g, ss::Session&) {
    return api::detach_buffer(c, g, BsendBuffers::of_session(session), buffer_addr, size, call);
  });
}

}  // namespace gasket::mpi::large_count
