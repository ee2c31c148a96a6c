#include "core/config/config.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/base/parse.h"

namespace gasket::config {

const std::vector<KnobSpec>& knobs() {
  static const std::vector<KnobSpec> kKnobs = {
#define GASKET_KNOB(id, type, def, cat, alias, choices, doc) \
  {Knob::id, "GASKET_" #id, Type::type, def, cat, alias, choices, doc},
#include "core/config/knobs.def"
#undef GASKET_KNOB
  };
  return kKnobs;
}

const KnobSpec& spec(Knob knob) { return knobs()[static_cast<size_t>(knob)]; }

const char* type_name(Type type) {
  switch (type) {
    case Type::kSize: return "size";
    case Type::kInt: return "integer";
    case Type::kBool: return "boolean";
    case Type::kString: return "string";
    case Type::kChoice: return "choice";
  }
  return "?";
}

Lookup environment_lookup() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

namespace {

bool is_choice(const char* choices, const std::string& value) {
  std::stringstream list(choices);
  std::string item;
  while (std::getline(list, item, '|')) {
    if (item == value) return true;
  }
  return false;
}

// Parses one textual value into `out` according to the knob's type.
Status parse_value(const KnobSpec& s, const std::string& text, uint64_t* number) {
  switch (s.type) {
    case Type::kSize: {
      if (s.choices[0] != '\0' && is_choice(s.choices, text)) {  // a word the runtime resolves ("auto")
        *number = 0;
        return Status::ok();
      }
      auto r = parse_size(text);
      if (!r.is_ok()) return r.status();
      *number = r.value();
      return Status::ok();
    }
    case Type::kInt: {
      auto r = parse_int(text, 0, INT32_MAX);
      if (!r.is_ok()) return r.status();
      *number = static_cast<uint64_t>(r.value());
      return Status::ok();
    }
    case Type::kBool: {
      auto r = parse_bool(text);
      if (!r.is_ok()) return r.status();
      *number = r.value() ? 1 : 0;
      return Status::ok();
    }
    case Type::kChoice:
      if (!is_choice(s.choices, text)) {
        return invalid_argument("'" + text + "' is not one of " + s.choices);
      }
      return Status::ok();
    case Type::kString:
      return Status::ok();
  }
  return Status::ok();
}

}  // namespace

Result<Config> Config::load(const Lookup& lookup) {
  Config config;
  for (const KnobSpec& s : knobs()) {
    Value v;
    const char* env = lookup(s.name);
    // OpenSHMEM's deprecated SMA_ prefix still names its SHMEM_ variables; SHMEM_ wins.
    std::string sma = std::strncmp(s.alias, "SHMEM_", 6) == 0 ? "SMA_" + std::string(s.alias + 6) : "";
    if (env != nullptr) {
      v.origin = s.name;
    } else if (s.alias[0] != '\0' && (env = lookup(s.alias)) != nullptr) {
      v.origin = s.alias;
    } else if (!sma.empty() && (env = lookup(sma.c_str())) != nullptr) {
      v.origin = sma;
    }
    v.text = env != nullptr ? env : s.default_value;
    if (v.origin.empty()) v.origin = "default";
    Status st = parse_value(s, v.text, &v.number);
    // OpenSHMEM's switches (SHMEM_INFO, SHMEM_DEBUG) take "any" value: set to a word that is not
    // a boolean, the standard name turns its knob on (the GASKET_ name stays strict).
    if (!st.is_ok() && s.type == Type::kBool && v.origin != s.name && v.origin != "default") {
      v.number = 1;
      st = Status::ok();
    }
    if (!st.is_ok()) {
      return invalid_argument("configuration " + v.origin + "='" + v.text + "': " + st.message());
    }
    config.values_.push_back(std::move(v));
  }
  return config;
}

std::string markdown_reference() {
  std::ostringstream out;
  out << "# gasket configuration\n\n"
      << "Generated from core/config/knobs.def by `gasket-info --markdown`; do not edit by hand\n"
      << "(a test compares this file with the generated text).\n\n"
      << "| variable | type | default | category | also read from | meaning |\n"
      << "|---|---|---|---|---|---|\n";
  for (const KnobSpec& s : knobs()) {
    std::string type = type_name(s.type);
    if (s.type == Type::kChoice) type += " (" + std::string(s.choices) + ")";
    if (s.type == Type::kSize && s.choices[0] != '\0') type += " or " + std::string(s.choices);
    out << "| `" << s.name << "` | " << type << " | `" << s.default_value << "` | " << s.category
        << " | " << (s.alias[0] ? "`" + std::string(s.alias) + "`" : std::string("")) << " | "
        << s.doc << " |\n";
  }
  return out.str();
}

}  // namespace gasket::config
