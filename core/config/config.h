// The configuration registry: typed values of every knob declared in knobs.def, read from the
// environment once at init. Invalid values are rejected with a message naming the variable.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace gasket::config {

enum class Type { kSize, kInt, kBool, kString, kChoice };

enum class Knob {
#define GASKET_KNOB(id, type, def, cat, alias, choices, doc) id,
#include "core/config/knobs.def"
#undef GASKET_KNOB
  kCount
};

struct KnobSpec {
  Knob knob;
  const char* name;  // "GASKET_HEAP_SIZE"
  Type type;
  const char* default_value;
  const char* category;
  const char* alias;    // "" when none
  const char* choices;  // "a|b|c" for kChoice; for kSize, words accepted besides a size ("auto")
  const char* doc;
};

// All knobs, in declaration order.
const std::vector<KnobSpec>& knobs();
const KnobSpec& spec(Knob knob);
const char* type_name(Type type);

// A source of variables: the process environment in production, a map in tests.
using Lookup = std::function<const char*(const char* name)>;
Lookup environment_lookup();

class Config {
 public:
  // Parses every knob; the first bad value fails with a message naming the variable and value.
  static Result<Config> load(const Lookup& lookup);

  uint64_t size(Knob k) const { return values_[index(k)].number; }
  int64_t integer(Knob k) const { return static_cast<int64_t>(values_[index(k)].number); }
  bool boolean(Knob k) const { return values_[index(k)].number != 0; }
  const std::string& text(Knob k) const { return values_[index(k)].text; }  // any type
  // Where the value came from: "default", or the variable that set it.
  const std::string& origin(Knob k) const { return values_[index(k)].origin; }
  // A size knob set to "auto" (size() is 0 until the runtime resolves it).
  bool is_auto(Knob k) const { return values_[index(k)].text == "auto"; }
  // The runtime's choice for an "auto" size; the text stays "auto".
  void resolve(Knob k, uint64_t number) { values_[index(k)].number = number; }

 private:
  struct Value {
    uint64_t number = 0;
    std::string text;
    std::string origin;
  };
  static size_t index(Knob k) { return static_cast<size_t>(k); }
  std::vector<Value> values_;
};

// docs/CONFIG.md: a Markdown table of every knob (generated, checked by a test).
std::string markdown_reference();

}  // namespace gasket::config
