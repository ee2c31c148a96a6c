// The names of MPI's name service (MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name):
// service name -> port name, kept as one file per name in a directory of this user, so that every
// job that uses the same directory meets every other: the jobs of one gasketrun launch, separate
// gasketrun commands, singletons, and PMIx jobs whose server keeps no names (Slurm's).
//
// The directory is GASKET_NAME_DIR, else /tmp/gasket-names-<uid>; it is created with mode 0700
// and refused when it is not a directory owned by this user. An entry records its owner (host and
// pid of the process keeping the table: gasketrun's launcher, the singleton, the PMIx PE); an
// entry of a dead owner on this host counts as never published (and is removed when met), and a
// table removes its own entries when it is destroyed. Errors (kInvalidArgument) name the service;
// a directory that cannot be used fails with kUnavailable naming it and errno's text.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>

#include "core/base/status.h"

namespace gasket::bootstrap {

class NameTable {
 public:
  // `directory` "" = GASKET_NAME_DIR, else /tmp/gasket-names-<uid>.
  explicit NameTable(std::string directory = "");
  ~NameTable();
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // Fails when a live owner has published `name`.
  Status publish(const std::string& name, const std::string& port);
  // Fails when nobody (alive) published `name`.
  Result<std::string> lookup(const std::string& name) const;
  Status unpublish(const std::string& name);

  // The longest service name (bytes): entries are files named by the name's hex digits.
  static constexpr size_t kMaxNameBytes = 120;

 private:
  struct Entry {
    std::string host;
    pid_t pid = 0;
    std::string port;
  };
  Status usable_directory() const;
  Result<std::string> entry_path(const std::string& name) const;
  // The entry at `path` when its owner may be alive; an entry of a dead owner is removed.
  Result<Entry> live_entry(const std::string& path, const std::string& name) const;

  std::string dir_;
  std::string host_;
  pid_t owner_;
  std::set<std::string> mine_;  // entry paths this table published
};

}  // namespace gasket::bootstrap
