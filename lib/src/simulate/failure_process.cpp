#include "topoplan/simulate/failure_process.hpp"

#include <algorithm>

#include "random.hpp"

namespace topoplan {

struct FailureProcess::Rng {
  explicit Rng(std::uint64_t seed) : random(seed) {}
  Random random;
};

FailureProcess::FailureProcess(const Topology& topology, const FailureRates& rates, std::uint64_t seed,
                               double start_s)
    : components_(component_rates(topology, rates)), rng_(std::make_unique<Rng>(seed)) {
  constexpr double kSecondsPerDay = 86400;
  cumulative_.reserve(components_.size());
  for (const ComponentRate& c : components_) cumulative_.push_back(total_ += c.per_day / kSecondsPerDay);
  next_.time_s = start_s;
  if (!never()) advance();
}

FailureProcess::~FailureProcess() = default;
FailureProcess::FailureProcess(FailureProcess&&) noexcept = default;
FailureProcess& FailureProcess::operator=(FailureProcess&&) noexcept = default;

void FailureProcess::advance() {
  // The merged process has rate total_; which component failed is chosen in
  // proportion to its rate.
  next_.time_s += rng_->random.exponential(total_);
  const double pick = rng_->random.uniform() * total_;
  auto k = static_cast<std::size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), pick) -
                                    cumulative_.begin());
  next_.component = components_[std::min(k, components_.size() - 1)];
}

}  // namespace topoplan
