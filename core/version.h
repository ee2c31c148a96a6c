// The gasket release this source tree builds.
#pragma once

namespace gasket {
inline constexpr const char kVersion[] = "0.1.0";
}
