// What names a job: its id (which also names its shared-memory files) and its secret. Used by the
// launcher, which creates them, and by the singleton bootstrap, which creates its own.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/status.h"

namespace gasket::bootstrap {

// Where the core puts the job's shared-memory files: kShmDirectory/shm_file_prefix(job_id)*.
constexpr char kShmDirectory[] = "/dev/shm";

// `bytes` random bytes from getrandom(2) (or /dev/urandom where getrandom is missing), as 2*bytes
// lowercase hex digits.
Result<std::string> random_hex(size_t bytes);

// A short unique id safe in file names: "<kind><pid>x<8 random hex>", e.g. "j4242x1f3a9c0d" for a
// launcher job, "s4242x..." for a singleton.
Result<std::string> new_job_id(char kind);

// Job ids contain only [A-Za-z0-9_.], are 1..64 characters long and never contain '-', so that
// "gasket-<id>-" of one job is never a prefix of another job's files.
bool is_valid_job_id(const std::string& id);

// "gasket-<job_id>-": every shared-memory file of the job starts with this.
std::string shm_file_prefix(const std::string& job_id);

// Removes every file in `directory` whose name starts with shm_file_prefix(job_id); returns how
// many were removed. Errors name the file and carry errno's text.
Result<int> remove_job_shm_files(const std::string& job_id,
                                 const std::string& directory = kShmDirectory);

}  // namespace gasket::bootstrap
