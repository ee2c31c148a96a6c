// The attributes cached on an MPI object (communicator, datatype, window): keyval -> value, kept
// in the order they were set. MPI_Finalize deletes MPI_COMM_SELF's in the reverse of that order
// (MPI 4.1 section 11.2.4), and the frees delete the last set first; setting a keyval again
// (after its deletion) makes it the last set.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace gasket::mpi {

class AttributeList {
 public:
  using Entry = std::pair<int, void*>;  // keyval, value
  using iterator = std::vector<Entry>::iterator;
  using const_iterator = std::vector<Entry>::const_iterator;
  using reverse_iterator = std::vector<Entry>::reverse_iterator;

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  reverse_iterator rbegin() { return entries_.rbegin(); }
  reverse_iterator rend() { return entries_.rend(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

  iterator find(int keyval) {
    return std::find_if(entries_.begin(), entries_.end(), [keyval](const Entry& e) { return e.first == keyval; });
  }
  const_iterator find(int keyval) const {
    return std::find_if(entries_.begin(), entries_.end(), [keyval](const Entry& e) { return e.first == keyval; });
  }
  size_t count(int keyval) const { return find(keyval) != end() ? 1 : 0; }
  void erase(iterator it) { entries_.erase(it); }
  // The value of `keyval`: a keyval not yet set is appended (the last set).
  void*& operator[](int keyval) {
    auto it = find(keyval);
    if (it != end()) return it->second;
    entries_.emplace_back(keyval, nullptr);
    return entries_.back().second;
  }
  // Sets `keyval` when absent (as the last set); a set keyval keeps its value.
  void emplace(int keyval, void* value) {
    if (find(keyval) == end()) entries_.emplace_back(keyval, value);
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace gasket::mpi
