#include "core/bootstrap/name_table.h"

#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap {

Status NameTable::publish(const std::string& name, const std::string& port) {
  auto [it, added] = ports_.emplace(name, port);
  if (!added) {
    return invalid_argument("the service name '" + protocol::printable(name) + "' is already published (port " +
                            protocol::printable(it->second) + ")");
  }
  return Status::ok();
}

Result<std::string> NameTable::lookup(const std::string& name) const {
  auto it = ports_.find(name);
  if (it == ports_.end()) return invalid_argument("no service named '" + protocol::printable(name) + "' is published");
  return it->second;
}

Status NameTable::unpublish(const std::string& name) {
  if (ports_.erase(name) == 0) {
    return invalid_argument("no service named '" + protocol::printable(name) + "' is published");
  }
  return Status::ok();
}

}  // namespace gasket::bootstrap
