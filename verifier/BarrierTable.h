// Per-barrier state of a checker, indexed densely: one flat array per CTA over the mbarrier slots of the module's
// barrier allocations (the layout sim/Engine.cpp gives its own barriers), plus a hash map for anything else used as
// a barrier (a slot outside its allocation's shape, a barrier array of more than 4096 slots). Looking up a barrier
// on the hot path is then an index computation, not a hash of (CTA, allocation, slot).
#pragma once

#include "sim/Events.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tlxsim::verifier {

/// Maps sim::BarrierKey to T. A key is absent until operator[] creates it (value-initialized T) and again after
/// erase / eraseCta, as with std::unordered_map. Not thread-safe; references stay valid until the key's CTA is
/// erased (eraseCta) — erase(key) only resets the value.
template <typename T> class BarrierTable {
public:
  /// Lays out the flat slots of `program`'s barrier allocations (Alloc::isBarrier, not in tensor memory, 1 to
  /// 4096 slots).
  explicit BarrierTable(const sim::Program &program) {
    for (const sim::Alloc &alloc : program.allocs) {
      int64_t slots = 1;
      for (int64_t d : alloc.shape)
        slots *= d;
      bool flat = alloc.isBarrier && !alloc.inTensorMemory && slots > 0 && slots <= 4096;
      base_.push_back(flat ? flatSlots_ : -1);
      count_.push_back(flat ? slots : 0);
      if (flat)
        flatSlots_ += slots;
    }
  }

  /// The value of `key`, created (value-initialized) if absent.
  T &operator[](const sim::BarrierKey &key) {
    if (key.cta < 0)
      return negative_[key];
    Cta &cta = ctaOf(key.cta);
    if (int64_t flat = flatIndex(key); flat >= 0) {
      if (!cta.present[flat]) {
        cta.present[flat] = 1;
        cta.flat[flat] = T{};
      }
      return cta.flat[flat];
    }
    return cta.other[key];
  }

  /// The value of `key`, or null if absent.
  T *find(const sim::BarrierKey &key) {
    if (key.cta < 0) {
      auto it = negative_.find(key);
      return it == negative_.end() ? nullptr : &it->second;
    }
    if (key.cta >= static_cast<int64_t>(ctas_.size()) || !ctas_[key.cta])
      return nullptr;
    Cta &cta = *ctas_[key.cta];
    if (int64_t flat = flatIndex(key); flat >= 0)
      return cta.present[flat] ? &cta.flat[flat] : nullptr;
    auto it = cta.other.find(key);
    return it == cta.other.end() ? nullptr : &it->second;
  }

  /// Makes `key` absent.
  void erase(const sim::BarrierKey &key) {
    if (key.cta < 0)
      negative_.erase(key);
    if (key.cta < 0 || key.cta >= static_cast<int64_t>(ctas_.size()) || !ctas_[key.cta])
      return;
    Cta &cta = *ctas_[key.cta];
    if (int64_t flat = flatIndex(key); flat >= 0) {
      cta.present[flat] = 0;
      cta.flat[flat] = T{};
    } else {
      cta.other.erase(key);
    }
  }

  /// Makes every barrier of CTA `cta` absent and frees its storage.
  void eraseCta(int64_t cta) {
    if (cta < 0)
      std::erase_if(negative_, [&](const auto &entry) { return entry.first.cta == cta; });
    if (cta >= 0 && cta < static_cast<int64_t>(ctas_.size()))
      ctas_[cta].reset();
  }

  /// Calls f(key, value) for every present barrier (in no particular order).
  template <typename F> void forEach(F &&f) {
    for (size_t c = 0; c < ctas_.size(); ++c) {
      if (!ctas_[c])
        continue;
      Cta &cta = *ctas_[c];
      for (size_t a = 0; a < base_.size(); ++a)
        for (int64_t i = 0; base_[a] >= 0 && i < count_[a]; ++i)
          if (cta.present[base_[a] + i])
            f(sim::BarrierKey{static_cast<int64_t>(c), static_cast<int32_t>(a), i}, cta.flat[base_[a] + i]);
      for (auto &[key, value] : cta.other)
        f(key, value);
    }
    for (auto &[key, value] : negative_)
      f(key, value);
  }

private:
  struct Cta {
    std::vector<T> flat;
    std::vector<uint8_t> present;
    std::unordered_map<sim::BarrierKey, T, sim::BarrierKeyHash> other;
  };
  int64_t flatIndex(const sim::BarrierKey &key) const {
    if (key.alloc < 0 || key.alloc >= static_cast<int32_t>(base_.size()) || base_[key.alloc] < 0 || key.index < 0 ||
        key.index >= count_[key.alloc])
      return -1;
    return base_[key.alloc] + key.index;
  }
  Cta &ctaOf(int64_t cta) {
    if (cta >= static_cast<int64_t>(ctas_.size()))
      ctas_.resize(cta + 1);
    if (!ctas_[cta]) {
      ctas_[cta] = std::make_unique<Cta>();
      ctas_[cta]->flat.resize(flatSlots_);
      ctas_[cta]->present.assign(flatSlots_, 0);
    }
    return *ctas_[cta];
  }

  std::vector<int64_t> base_, count_; ///< per allocation: first flat slot (-1: not flat), slots
  int64_t flatSlots_ = 0;
  std::vector<std::unique_ptr<Cta>> ctas_; ///< by CTA id
  std::unordered_map<sim::BarrierKey, T, sim::BarrierKeyHash> negative_; ///< keys of a negative CTA id (none expected)
};

} // namespace tlxsim::verifier
