// The names of MPI's name service (MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name):
// service name -> port name. Kept by gasketrun's store for every job of one launch, and in
// process by a singleton. Errors (kInvalidArgument) name the service.
#pragma once

#include <map>
#include <string>

#include "core/base/status.h"

namespace gasket::bootstrap {

class NameTable {
 public:
  // Fails when `name` is already published.
  Status publish(const std::string& name, const std::string& port);
  // Fails when nobody published `name`.
  Result<std::string> lookup(const std::string& name) const;
  Status unpublish(const std::string& name);

 private:
  std::map<std::string, std::string> ports_;
};

}  // namespace gasket::bootstrap
