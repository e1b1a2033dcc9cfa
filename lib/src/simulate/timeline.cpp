#include "timeline.hpp"

#include <algorithm>

namespace topoplan {

Timeline::Timeline(double origin_s, double width_s, std::size_t target, std::uint64_t accelerators)
    : origin_(origin_s),
      width_(std::max(width_s, 1e-3)),
      target_(std::max<std::size_t>(target, 1)),
      accelerators_(static_cast<double>(std::max<std::uint64_t>(accelerators, 1))),
      last_(origin_s) {}

void Timeline::close(double end_s, double bucket_s, const State& state, const LargestFree& largest_free) {
  TimelinePoint p;
  p.time_s = end_s;
  p.utilisation = bucket_s > 0 ? integral_ / (bucket_s * accelerators_) : static_cast<double>(state.busy) / accelerators_;
  p.running = state.running;
  p.waiting = state.waiting;
  p.largest_free = largest_free();
  points_.push_back(std::move(p));
  integral_ = 0;
  if (points_.size() < 2 * target_) return;
  // Merge neighbours: each pair covers one bucket of twice the width.
  std::vector<TimelinePoint> merged;
  merged.reserve(target_);
  for (std::size_t i = 0; i + 1 < points_.size(); i += 2) {
    TimelinePoint m = points_[i + 1];
    m.utilisation = (points_[i].utilisation + points_[i + 1].utilisation) / 2;
    merged.push_back(std::move(m));
  }
  points_ = std::move(merged);
  width_ *= 2;
}

void Timeline::advance(double time_s, const State& state, const LargestFree& largest_free) {
  while (true) {
    const double boundary = origin_ + static_cast<double>(points_.size() + 1) * width_;
    if (boundary > time_s) break;
    integral_ += static_cast<double>(state.busy) * (boundary - last_);
    last_ = boundary;
    close(boundary, width_, state, largest_free);
  }
  if (time_s > last_) {
    integral_ += static_cast<double>(state.busy) * (time_s - last_);
    last_ = time_s;
  }
}

std::vector<TimelinePoint> Timeline::finish(double time_s, const State& state, const LargestFree& largest_free) {
  advance(time_s, state, largest_free);
  const double start = origin_ + static_cast<double>(points_.size()) * width_;
  if (time_s > start || points_.empty()) close(std::max(time_s, start), time_s - start, state, largest_free);
  return std::move(points_);
}

}  // namespace topoplan
