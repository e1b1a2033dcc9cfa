// The simulator's timeline: the cluster sampled at evenly spaced instants
// from the first arrival to the end, without knowing the end in advance.
// Buckets start `width` wide; whenever there are twice the target number,
// neighbours merge and the width doubles, so a run ends with between
// `target` and 2 x `target` points whatever its length.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "topoplan/simulate/simulator.hpp"

namespace topoplan {

class Timeline {
 public:
  /// What holds at a bucket's end: running and waiting jobs, and the most
  /// free accelerators in one domain per level.
  struct State {
    std::uint64_t busy = 0;  // accelerators
    std::uint32_t running = 0;
    std::uint32_t waiting = 0;
  };
  using LargestFree = std::function<std::vector<std::uint32_t>()>;

  Timeline(double origin_s, double width_s, std::size_t target, std::uint64_t accelerators);

  /// `state` held from the previous call until `time_s`; closes every bucket
  /// that ends by then.
  void advance(double time_s, const State& state, const LargestFree& largest_free);
  /// Closes the last, partial bucket at `time_s`.
  std::vector<TimelinePoint> finish(double time_s, const State& state, const LargestFree& largest_free);

  double width() const { return width_; }

 private:
  void close(double end_s, double bucket_s, const State& state, const LargestFree& largest_free);

  double origin_;
  double width_;
  std::size_t target_;
  double accelerators_;
  double last_ = 0;       // time of the previous advance
  double integral_ = 0;   // busy accelerator-seconds in the open bucket
  std::vector<TimelinePoint> points_;
};

}  // namespace topoplan
