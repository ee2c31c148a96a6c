// The UCX backend: gasket's production network path over UCP (see README.md).
//
// One UCP context and worker per PE; endpoints are created on first use of a peer; every segment
// is registered once (ucp_mem_map) and its packed remote key published through the bootstrap, to
// be unpacked by each peer on first use. Capabilities: remote read, native atomics (UCP's op set
// at 32 and 64 bits) and native active messages.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace gasket::backend::ucx {

// Starts UCX for this PE and publishes its worker address. Fails with UCX's own text when the
// context or worker cannot be created (bad UCX_* settings, no usable transport).
Result<std::unique_ptr<Backend>> create(const StartInfo& info);

// Whether `backend`, a ucx backend, has made its endpoint to `pe`: endpoints (and, over shared
// memory, the mapping of a same-host peer's segments) are made at first contact, so a PE never
// contacted has none. False for any other backend or PE.
bool has_endpoint(Backend& backend, int pe);

}  // namespace gasket::backend::ucx
