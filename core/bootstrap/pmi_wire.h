// The PMI-1 wire protocol ("simple PMI"), client side: what a process started by MPICH's Hydra
// (mpiexec.hydra / mpiexec.mpich), Slurm's pmi2 plugin or another PMI-1 process manager reads and
// writes on the socket named by PMI_FD. Kept apart from the socket so it can be tested alone.
//
// A message is one line of space-separated `name=value` fields ending in '\n', the first field
// being `cmd=<command>`:
//   cmd=init pmi_version=1 pmi_subversion=1  -> cmd=response_to_init pmi_version=1 ... rc=0
//   cmd=get_maxes                            -> cmd=maxes kvsname_max=K keylen_max=L vallen_max=V
//   cmd=get_my_kvsname                       -> cmd=my_kvsname kvsname=NAME
//   cmd=put kvsname=NAME key=K value=V       -> cmd=put_result rc=0 msg=success
//   cmd=barrier_in                           -> cmd=barrier_out
//   cmd=get kvsname=NAME key=K               -> cmd=get_result rc=0 msg=success value=V
//                                               (rc=-1 msg=... when nobody put K before the barrier)
//   cmd=abort exitcode=N                     -> (the process manager ends the job with status N)
//   cmd=finalize                             -> cmd=finalize_ack
// Values may hold no space, '=' or newline: gasket sends its (binary) values as hex, split over
// several keys when longer than the manager's vallen_max.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace gasket::bootstrap::pmi {

// The longest line a client accepts from the process manager (Hydra's are below 2 KiB).
constexpr size_t kMaxLineBytes = 64 * 1024;

// The fields of one line (without its '\n'); fails on a field without '=' or without cmd=.
Result<std::map<std::string, std::string>> parse_line(std::string_view line);

// Bytes as lowercase hex, and back (fails on odd length or a non-hex digit).
std::string hex_encode(std::string_view bytes);
Result<std::string> hex_decode(std::string_view hex);

// True when `text` can be a PMI-1 key or value: non-empty, printable ASCII without ' ' or '='.
bool is_wire_safe(std::string_view text);

}  // namespace gasket::bootstrap::pmi
