// When the parts of a cluster fail during a simulation: independent Poisson
// processes, one per component of a failure-rate file (io/failure_rates.hpp),
// drawn as one merged stream in time order from a seed. The stream depends
// only on the topology, the rates and the seed, so every policy sees the same
// failures at the same times.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "topoplan/io/failure_rates.hpp"

namespace topoplan {

struct FailureEvent {
  double time_s = 0;
  ComponentRate component;
};

class FailureProcess {
 public:
  /// Failures from `start_s` on. No component with a rate: never fails.
  FailureProcess(const Topology& topology, const FailureRates& rates, std::uint64_t seed, double start_s);
  ~FailureProcess();
  FailureProcess(FailureProcess&&) noexcept;
  FailureProcess& operator=(FailureProcess&&) noexcept;

  bool never() const { return components_.empty(); }
  /// The next failure; only when !never().
  const FailureEvent& next() const { return next_; }
  /// Draws the one after it.
  void advance();
  /// Failures per second over the whole cluster.
  double rate_per_second() const { return total_; }

 private:
  struct Rng;
  std::vector<ComponentRate> components_;
  std::vector<double> cumulative_;  // per component: running sum of rates per second
  double total_ = 0;
  std::unique_ptr<Rng> rng_;
  FailureEvent next_;
};

}  // namespace topoplan
