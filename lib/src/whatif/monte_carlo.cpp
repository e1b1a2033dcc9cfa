#include "topoplan/whatif/monte_carlo.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "topoplan/model/fabric.hpp"
#include "topoplan/whatif/footprint.hpp"

namespace topoplan {

double uniform01(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

namespace {

constexpr double kHoursPerDay = 24;

struct Hit {
  std::uint32_t job;      // index into MonteCarloResult::jobs
  std::uint32_t replica;
};

// Which (job, replica) each component's failure hits.
std::vector<std::vector<Hit>> hits_of(const Topology& t, const Plan& plan, const std::vector<ComponentRate>& rates,
                                      std::vector<std::size_t>& placed) {
  std::map<std::pair<ComponentClass, std::uint32_t>, std::uint32_t> index;
  for (std::uint32_t c = 0; c < rates.size(); ++c) index.emplace(std::make_pair(rates[c].what, rates[c].id), c);
  std::vector<std::vector<Hit>> hits(rates.size());
  auto hit = [&](ComponentClass what, std::uint32_t id, Hit h) {
    auto it = index.find({what, id});
    if (it == index.end()) return;
    std::vector<Hit>& list = hits[it->second];
    if (list.empty() || list.back().job != h.job || list.back().replica != h.replica) list.push_back(h);
  };
  const ScaleUpIslands islands = find_scale_up_islands(t);
  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    const JobPlacement& p = plan.placements[j];
    if (!p.placed) continue;
    const auto job = static_cast<std::uint32_t>(placed.size());
    placed.push_back(j);
    for (std::uint32_t r = 0; r < p.replicas.size(); ++r) {
      const Hit h{job, r};
      std::vector<DomainId> domains;
      for (DeviceId d : p.replicas[r]) {
        hit(ComponentClass::device, d, h);
        for (DomainId dom = t.device(d).domain; dom != kNone; dom = t.domain(dom).parent) domains.push_back(dom);
      }
      std::sort(domains.begin(), domains.end());
      domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
      for (DomainId dom : domains) hit(ComponentClass::domain, dom, h);
      Footprint f = replica_footprint(t, islands, p.replicas[r]);
      for (DeviceId d : f.devices) hit(ComponentClass::device, d, h);
      for (LinkId l : f.links) hit(ComponentClass::link, l, h);
    }
  }
  return hits;
}

std::uint64_t accelerators_of(const Topology& t, const ComponentRate& c) {
  switch (c.what) {
    case ComponentClass::device: return t.accelerator_index(c.id) != kNone ? 1 : 0;
    case ComponentClass::domain: return t.domain(c.id).accelerator_count();
    case ComponentClass::link: return 0;
  }
  return 0;
}

}  // namespace

MonteCarloResult monte_carlo(const Topology& t, const Plan& plan, const std::vector<ComponentRate>& rates,
                             const MonteCarloOptions& options) {
  MonteCarloResult out;
  out.options = options;
  std::vector<std::size_t> placed;
  const std::vector<std::vector<Hit>> hits = hits_of(t, plan, rates, placed);
  const std::size_t n = placed.size();
  out.jobs.resize(n);
  std::vector<std::uint32_t> replicas(n), allowed_down(n);
  std::vector<std::uint64_t> job_accelerators(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = placed[i];
    out.jobs[i].job = j;
    replicas[i] = static_cast<std::uint32_t>(plan.placements[j].replicas.size());
    allowed_down[i] = replicas[i] - std::min(plan.jobs[j].needed_replicas(), replicas[i]);
    job_accelerators[i] = plan.placements[j].device_count();
  }

  // Closed form, and the cumulative rates to draw components from.
  std::vector<double> cumulative(rates.size());
  double total = 0;
  for (std::size_t c = 0; c < rates.size(); ++c) {
    total += rates[c].per_day;
    cumulative[c] = total;
    std::uint32_t last = kNone;
    for (const Hit& h : hits[c])
      if (h.job != last) {
        out.jobs[h.job].expected_per_day += rates[c].per_day;
        last = h.job;
      }
  }
  out.failures_per_day = total;

  std::mt19937_64 generator(options.seed);
  const double days = options.days;
  std::vector<double> sum(n, 0), sum_squares(n, 0);
  std::vector<std::uint32_t> count(n, 0), kept(n, 0);
  std::vector<std::uint8_t> broken(n, 0);
  // Per job: replicas down until a time (days), while a repair lasts.
  std::vector<std::vector<std::pair<double, std::uint32_t>>> down(n);
  double accelerators_failed = 0, accelerator_hours = 0, interrupted = 0;
  for (std::uint32_t trial = 0; trial < options.trials && total > 0; ++trial) {
    std::fill(count.begin(), count.end(), 0);
    std::fill(broken.begin(), broken.end(), 0);
    for (auto& d : down) d.clear();
    double time = 0;
    for (;;) {
      time += -std::log(1.0 - uniform01(generator())) / total;
      if (time >= days) break;
      const double pick = uniform01(generator()) * total;
      auto c = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin());
      if (c >= rates.size()) c = rates.size() - 1;
      const ComponentRate& rate = rates[c];
      const double repair_days = rate.repair_hours / kHoursPerDay;
      const std::uint64_t a = accelerators_of(t, rate);
      accelerators_failed += static_cast<double>(a);
      accelerator_hours += static_cast<double>(a) * std::min(repair_days, days - time) * kHoursPerDay;
      std::uint32_t last = kNone;
      for (const Hit& h : hits[c]) {
        if (h.job != last) {
          ++count[h.job];
          interrupted += static_cast<double>(job_accelerators[h.job]);
          last = h.job;
          // Replicas still under repair, then this failure's.
          auto& list = down[h.job];
          list.erase(std::remove_if(list.begin(), list.end(), [&](const auto& e) { return e.first < time; }),
                     list.end());
        }
        down[h.job].emplace_back(time + repair_days, h.replica);
      }
      last = kNone;
      for (const Hit& h : hits[c]) {
        if (h.job == last) continue;
        last = h.job;
        std::vector<std::uint32_t> replicas_down;
        for (const auto& e : down[h.job]) replicas_down.push_back(e.second);
        std::sort(replicas_down.begin(), replicas_down.end());
        const auto distinct = static_cast<std::uint32_t>(
            std::unique(replicas_down.begin(), replicas_down.end()) - replicas_down.begin());
        if (distinct > allowed_down[h.job]) broken[h.job] = 1;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double per_day = count[i] / days;
      sum[i] += per_day;
      sum_squares[i] += per_day * per_day;
      kept[i] += broken[i] ? 0u : 1u;
    }
  }
  const double trials = std::max<double>(1, options.trials);
  for (std::size_t i = 0; i < n; ++i) {
    JobReliability& r = out.jobs[i];
    r.interruptions_per_day = sum[i] / trials;
    const double variance = std::max(0.0, sum_squares[i] / trials - r.interruptions_per_day * r.interruptions_per_day);
    r.interruptions_stderr = trials > 1 ? std::sqrt(variance * trials / (trials - 1) / trials) : 0;
    r.guarantee_probability = total > 0 ? kept[i] / trials : 1;
  }
  const double exposure = trials * days;
  out.accelerators_failed_per_day = accelerators_failed / exposure;
  out.accelerator_hours_down_per_day = accelerator_hours / exposure;
  out.accelerators_interrupted_per_day = interrupted / exposure;
  return out;
}

}  // namespace topoplan
