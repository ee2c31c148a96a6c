// Internal to core/bootstrap: the implementations behind create_from_environment().
#pragma once

#include <memory>

#include "core/bootstrap/bootstrap.h"
#include "core/bootstrap/job_environment.h"

namespace gasket::bootstrap::detail {

// Connects to the launcher's store and authenticates; fails with the PE, address and errno text.
Result<std::unique_ptr<Bootstrap>> connect_launcher_store(const JobEnvironment& env);

// True when a PMIx server started this process (PMIX_NAMESPACE and PMIX_RANK are set).
bool pmix_server_in_environment();

// PMIx_Init and the job's size and placement; fails with PMIx's error text.
Result<std::unique_ptr<Bootstrap>> connect_pmix();

// Speaks PMI-1 over the socket in PMI_FD (PMI_RANK, PMI_SIZE): init, limits, the job's key-value
// space and PE 0's secret; fails naming the variable or the process manager's answer.
Result<std::unique_ptr<Bootstrap>> connect_pmi(const EnvLookup& lookup);

// PE 0 of 1 with an in-process store.
Result<std::unique_ptr<Bootstrap>> create_singleton();

}  // namespace gasket::bootstrap::detail
