// Internal to core/bootstrap: the implementations behind create_from_environment().
#pragma once

#include <memory>
#include <string>

#include "core/bootstrap/bootstrap.h"
#include "core/bootstrap/job_environment.h"

namespace gasket::bootstrap::detail {

// A TCP connection to host:port (TCP_NODELAY, close-on-exec); errors start with `where` and end
// with errno's text.
Result<int> connect_tcp(const std::string& host, int port, const std::string& where);

// Connects to the launcher's store and authenticates; fails with the PE, address and errno text.
Result<std::unique_ptr<Bootstrap>> connect_launcher_store(const JobEnvironment& env);

// True when a PMIx server started this process (PMIX_NAMESPACE and PMIX_RANK are set).
bool pmix_server_in_environment();

// PMIx_Init and the job's size and placement; fails with PMIx's error text.
Result<std::unique_ptr<Bootstrap>> connect_pmix();

// Speaks PMI-1 over the socket in PMI_FD (PMI_RANK, PMI_SIZE), or over a connection to PMI_PORT
// (Hydra's -pmi-port: rank and size come from the manager after `initack` with PMI_ID): init,
// limits, the job's key-value space and PE 0's secret; fails naming the variable or the manager's
// answer.
Result<std::unique_ptr<Bootstrap>> connect_pmi(const EnvLookup& lookup);

// The first steps of an abort under a launcher other than gasketrun: prints "gasket: PE <rank>
// aborted with code <exit_code>: <message>" on stderr, waits (up to 1 s) until a reader of a
// stderr pipe has taken it, removes this node's /dev/shm files of the job. Returns the status to
// exit with: exit_code, or 1 when exit_code is 0 modulo 256.
int report_abort(int rank, const std::string& job_id, int exit_code, const std::string& message);

// After asking a launcher to end the job over the connection `fd`: returns when it closes the
// connection (it is killing us) or after timeout_ms.
void wait_until_closed(int fd, int timeout_ms);

// PE 0 of 1 with an in-process store.
Result<std::unique_ptr<Bootstrap>> create_singleton();

}  // namespace gasket::bootstrap::detail
