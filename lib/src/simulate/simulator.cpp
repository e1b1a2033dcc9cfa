// The simulator's event loop (simulator.hpp): arrivals, completions,
// failures and repairs in time order, and after each instant one pass over
// the queue with EASY backfilling, all through PlannerState's verbs.
#include "topoplan/simulate/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "../placement/price_cache.hpp"
#include "timeline.hpp"
#include "trace_job.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/planner_state.hpp"
#include "topoplan/simulate/failure_process.hpp"

namespace topoplan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Jobs with the same shape place alike: same size, parallelism, kind,
// constraints, model and tenant. A tuple, not a formatted string: building
// 100,000 keys with fmt cost 2.8 % of a kueue replay (callgrind).
using ShapeKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, JobKind,
                            std::optional<std::string>, std::optional<std::string>, std::string, std::string>;

ShapeKey shape_key(const Job& j) {
  return {j.per_replica, j.parallelism.tp, j.parallelism.pp, j.parallelism.dp, j.parallelism.ep, j.kind,
          j.required,    j.preferred,      j.accelerator_model, j.tenant};
}

std::vector<DeviceId> ranks_of(const JobPlacement& p) {
  std::vector<DeviceId> ranks;
  for (const auto& r : p.replicas) ranks.insert(ranks.end(), r.begin(), r.end());
  return ranks;
}

}  // namespace

struct Simulator::Impl {
  const Topology& t;
  const Trace& trace;
  SimulationOptions options;
  JobPricer pricer;
  PriceCache prices;
  std::vector<Job> jobs;
  std::vector<std::uint32_t> shape;       // per job
  std::vector<double> comm_fraction;      // per job
  std::vector<double> ideal_step;         // per shape; < 0: does not fit the cluster
  std::vector<std::string> ideal_reason;  // per shape, when it does not fit
  std::vector<std::uint32_t> arrivals;    // job indices by (submit, trace order)
  std::uint32_t min_gpus = 0;             // the smallest job's accelerators

  Impl(const Topology& topology, const Trace& tr, SimulationOptions o)
      : t(topology), trace(tr), options(std::move(o)), pricer(topology), prices(topology, pricer) {
    jobs.reserve(trace.jobs.size());
    std::map<ShapeKey, std::uint32_t> shapes;
    std::vector<std::uint32_t> first_of_shape;
    for (const TraceJob& tj : trace.jobs) {
      jobs.push_back(to_job(tj));
      auto [it, fresh] = shapes.emplace(shape_key(jobs.back()), static_cast<std::uint32_t>(shapes.size()));
      if (fresh) first_of_shape.push_back(static_cast<std::uint32_t>(jobs.size() - 1));
      shape.push_back(it->second);
      comm_fraction.push_back(options.slowdown.comm_fraction_for(tj.comm_fraction, tj.gpus));
      min_gpus = jobs.size() == 1 ? tj.gpus : std::min(min_gpus, tj.gpus);
    }
    // The ideal placement of each shape: ours, on the empty cluster. Jobs
    // the topology cannot interpret are reported all at once.
    PlannerState empty(t, {"topo", &pricer, true});
    DiagnosticSink sink(20);
    ideal_step.assign(first_of_shape.size(), -1);
    ideal_reason.resize(first_of_shape.size());
    for (std::size_t s = 0; s < first_of_shape.size(); ++s) {
      const Job& job = jobs[first_of_shape[s]];
      try {
        PlannerState::PlaceResult r = empty.place(job);
        if (r.id == kNone) {
          ideal_reason[s] = r.placement.reason.empty() ? "does not fit the cluster" : r.placement.reason;
          continue;
        }
        std::vector<DeviceId> ranks = ranks_of(r.placement);
        ideal_step[s] = prices.step_seconds(job, ranks);
        if (!(ideal_step[s] >= 0)) ideal_step[s] = 0;
        empty.release(r.id);
      } catch (const InputError& e) {
        for (const Diagnostic& d : e.diagnostics()) sink.error(d.where, d.message);
      }
    }
    sink.throw_if_any();
    arrivals.resize(jobs.size());
    for (std::uint32_t i = 0; i < arrivals.size(); ++i) arrivals[i] = i;
    std::stable_sort(arrivals.begin(), arrivals.end(), [&](std::uint32_t a, std::uint32_t b) {
      return trace.jobs[a].submit_s < trace.jobs[b].submit_s;
    });
  }
};

Simulator::Simulator(const Topology& topology, const Trace& trace, SimulationOptions options)
    : impl_(std::make_unique<Impl>(topology, trace, std::move(options))) {}
Simulator::~Simulator() = default;

namespace {

// One policy's run: the state of every job and the event queues.
class Run {
 public:
  Run(const Simulator::Impl& s, std::string_view policy)
      : s_(s),
        t_(s.t),
        state_(s.t, {std::string(policy), &s.pricer, false}),
        probe_(s.t, {std::string(policy), &s.pricer, true}),
        mask_(s.t),
        n_(s.jobs.size()) {
    out_.policy = std::string(policy);
    out_.jobs.resize(n_);
    out_.accelerators = t_.accelerators().size();
    live_.resize(n_);
    probe_ok_.assign(s.ideal_step.size(), -1);
    probe_reason_.resize(s.ideal_step.size());
    failed_at_.assign(s.ideal_step.size(), kNever);
    for (std::size_t i = 0; i < n_; ++i) {
      out_.jobs[i].submit_s = s.trace.jobs[i].submit_s;
      out_.jobs[i].comm_fraction = s.comm_fraction[i];
      out_.jobs[i].ideal_step_s = s.ideal_step[s.shape[i]];
      live_[i].remaining = s.trace.jobs[i].duration_s;
    }
    if (s.options.failures)
      failures_ = std::make_unique<FailureProcess>(t_, *s.options.failures, s.options.seed, first_arrival());
  }

  PolicyRun run() {
    const double origin = first_arrival();
    out_.start_s = origin;
    double last_submit = n_ ? s_.trace.jobs[s_.arrivals.back()].submit_s : origin;
    double mean_duration = 0;
    for (const TraceJob& j : s_.trace.jobs) mean_duration += j.duration_s / static_cast<double>(n_);
    Timeline timeline(origin, (last_submit - origin + mean_duration) / static_cast<double>(s_.options.samples),
                      s_.options.samples, out_.accelerators);
    now_ = origin;
    std::size_t events = 0;
    while (true) {
      const double t_arrival = next_arrival_ < n_ ? s_.trace.jobs[s_.arrivals[next_arrival_]].submit_s : kInf;
      drop_stale_completions();
      const double t_done = completions_.empty() ? kInf : completions_.top().time;
      const double t_repair = repairs_.empty() ? kInf : repairs_.top().time;
      const bool active = running_ > 0 || !waiting_.empty() || next_arrival_ < n_;
      if (!active) break;
      // Nothing runs, nothing arrives, nothing comes back: the rest never starts.
      if (running_ == 0 && next_arrival_ >= n_ && t_repair == kInf) break;
      const double t_fail = failures_ && !failures_->never() ? failures_->next().time_s : kInf;
      const double next = std::min({t_arrival, t_done, t_repair, t_fail});
      timeline.advance(next, timeline_state(), [&] { return largest_free(); });
      out_.busy_accelerator_s += static_cast<double>(busy_) * (next - now_);
      now_ = next;
      while (!completions_.empty() && completions_.top().time <= now_) {
        Completion c = completions_.top();
        completions_.pop();
        if (c.attempt == live_[c.job].attempt && live_[c.job].running) complete(c.job);
      }
      while (!repairs_.empty() && repairs_.top().time <= now_) {
        repair(repairs_.top().component);
        repairs_.pop();
      }
      while (failures_ && !failures_->never() && failures_->next().time_s <= now_) {
        fail(failures_->next().component);
        failures_->advance();
      }
      while (next_arrival_ < n_ && s_.trace.jobs[s_.arrivals[next_arrival_]].submit_s <= now_)
        arrive(s_.arrivals[next_arrival_++]);
      schedule();
      if (s_.options.progress && (++events & 1023) == 0)
        s_.options.progress(static_cast<double>(done_) / static_cast<double>(n_));
    }
    for (std::uint32_t j : waiting_)
      out_.jobs[j].reason = out_.jobs[j].restarts > 0
                                ? "failed and found no placement again before the end"
                                : "the policy found no placement even with nothing else running";
    out_.end_s = now_;
    out_.timeline = timeline.finish(now_, timeline_state(), [&] { return largest_free(); });
    if (s_.options.progress) s_.options.progress(1.0);
    return std::move(out_);
  }

 private:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  struct Live {
    double remaining = 0;       // trace seconds of work left
    double attempt_start = 0;
    double factor = 1;
    double end = 0;
    PlannerState::JobId id = kNone;
    std::uint32_t attempt = 0;
    bool running = false;
    bool multi_node = false;
  };
  struct Completion {
    double time;
    std::uint32_t job;
    std::uint32_t attempt;
    bool operator>(const Completion& o) const { return time != o.time ? time > o.time : job > o.job; }
  };
  struct Repair {
    double time;
    std::uint64_t order;
    ComponentRate component;
    bool operator>(const Repair& o) const { return time != o.time ? time > o.time : order > o.order; }
  };

  double first_arrival() const { return n_ ? s_.trace.jobs[s_.arrivals.front()].submit_s : 0; }
  std::uint32_t gpus(std::uint32_t j) const { return s_.jobs[j].per_replica; }

  Timeline::State timeline_state() const {
    return {busy_, running_, static_cast<std::uint32_t>(waiting_.size())};
  }

  std::vector<std::uint32_t> largest_free() const {
    const Occupancy& occ = state_.occupancy();
    std::vector<std::uint32_t> out;
    for (LevelIndex l = 0; l <= t_.host_level(); ++l) {
      auto [first, last] = t_.domains_at(l);
      std::uint32_t best = 0;
      for (DomainId d = first; d < last; ++d) best = std::max(best, occ.free_in(d));
      out.push_back(best);
    }
    return out;
  }

  void drop_stale_completions() {
    while (!completions_.empty()) {
      const Completion& c = completions_.top();
      if (c.attempt == live_[c.job].attempt && live_[c.job].running) return;
      completions_.pop();
    }
  }

  // Queue order: priority (higher first), then arrival, then trace order.
  bool before(std::uint32_t a, std::uint32_t b) const {
    const TraceJob& x = s_.trace.jobs[a];
    const TraceJob& y = s_.trace.jobs[b];
    if (x.priority != y.priority) return x.priority > y.priority;
    if (x.submit_s != y.submit_s) return x.submit_s < y.submit_s;
    return a < b;
  }

  void enqueue(std::uint32_t j) {
    auto at = std::upper_bound(waiting_.begin(), waiting_.end(), j,
                               [&](std::uint32_t a, std::uint32_t b) { return before(a, b); });
    waiting_.insert(at, j);
  }

  // Whether the policy can place a job of this shape at all (on the empty cluster).
  bool placeable(std::uint32_t j) {
    const std::uint32_t sh = s_.shape[j];
    if (s_.ideal_step[sh] < 0) {
      probe_ok_[sh] = 0;
      probe_reason_[sh] = s_.ideal_reason[sh];
    }
    if (probe_ok_[sh] < 0) {
      PlannerState::PlaceResult r = probe_.place(s_.jobs[j]);
      probe_ok_[sh] = r.id != kNone ? 1 : 0;
      if (r.id != kNone)
        probe_.release(r.id);
      else
        probe_reason_[sh] = fmt::format("policy {} cannot place it even on the empty cluster{}{}", out_.policy,
                                        r.placement.reason.empty() ? "" : ": ", r.placement.reason);
    }
    return probe_ok_[sh] == 1;
  }

  void arrive(std::uint32_t j) {
    if (!placeable(j)) {
      out_.jobs[j].reason = probe_reason_[s_.shape[j]];
      ++done_;
      return;
    }
    enqueue(j);
  }

  void start(std::uint32_t j, const PlannerState::PlaceResult& r) {
    Live& l = live_[j];
    JobOutcome& o = out_.jobs[j];
    const std::vector<DeviceId> ranks = ranks_of(r.placement);
    const double step = s_.prices.step_seconds(s_.jobs[j], ranks);
    l.factor = s_.options.slowdown.factor(s_.comm_fraction[j], step, s_.ideal_step[s_.shape[j]]);
    l.attempt_start = now_;
    l.end = now_ + l.remaining * l.factor;
    l.id = r.id;
    l.running = true;
    const Occupancy& occ = state_.occupancy();
    l.multi_node = false;
    if (!ranks.empty()) {
      const DomainId first = occ.node_of(t_.accelerator_index(ranks.front()));
      for (DeviceId d : ranks)
        if (occ.node_of(t_.accelerator_index(d)) != first) l.multi_node = true;
    }
    if (o.start_s < 0) o.start_s = now_;
    o.slowdown = l.factor;
    o.step_s = step;
    if (owner_.size() <= r.id) owner_.resize(r.id + 1, kNone);
    owner_[r.id] = j;
    busy_ += gpus(j);
    ++running_;
    by_end_.insert({l.end, j});
    completions_.push({l.end, j, l.attempt});
  }

  void stop(std::uint32_t j) {
    Live& l = live_[j];
    state_.release(l.id);
    l.running = false;
    busy_ -= gpus(j);
    --running_;
    by_end_.erase({l.end, j});
    ++epoch_;
  }

  void complete(std::uint32_t j) {
    stop(j);
    live_[j].remaining = 0;
    out_.jobs[j].end_s = now_;
    ++done_;
  }

  // A failure hit a running job: it loses the work since its last
  // checkpoint and waits again in its old place in the queue.
  void hit(std::uint32_t j) {
    Live& l = live_[j];
    const double elapsed = now_ - l.attempt_start;
    const double c = s_.options.checkpoint_interval_s;
    const double saved = c > 0 ? std::floor(elapsed / c) * c : 0.0;
    l.remaining = std::max(0.0, l.remaining - saved / l.factor);
    out_.lost_accelerator_s += (elapsed - saved) * gpus(j);
    stop(j);
    ++l.attempt;
    ++out_.jobs[j].restarts;
    ++out_.jobs_hit;
    enqueue(j);
  }

  // Running jobs with an accelerator in [begin, end); with `multi` only those
  // that use more than one accelerator (a switch or link failure does not
  // stop a job that does not communicate).
  void jobs_in(std::uint32_t begin, std::uint32_t end, bool multi, std::set<std::uint32_t>& out) const {
    for (std::uint32_t a = begin; a < end; ++a) {
      PlannerState::JobId id = state_.owner(a);
      if (id == kNone || id >= owner_.size() || owner_[id] == kNone) continue;
      const std::uint32_t j = owner_[id];
      if (live_[j].running && (!multi || gpus(j) > 1)) out.insert(j);
    }
  }

  DomainId common_domain(DomainId a, DomainId b) const {
    while (a != b) {
      if (t_.domain(a).level >= t_.domain(b).level && t_.domain(a).parent != kNone)
        a = t_.domain(a).parent;
      else if (t_.domain(b).parent != kNone)
        b = t_.domain(b).parent;
      else
        break;
    }
    return a;
  }

  bool is_down(const ComponentRate& c) const {
    switch (c.what) {
      case ComponentClass::device: return mask_.device(c.id) == DeviceState::down;
      case ComponentClass::link: return mask_.link(c.id) == DeviceState::down;
      case ComponentClass::domain: return mask_.domain(c.id) == DeviceState::down;
    }
    return false;
  }

  void set(const ComponentRate& c, bool down) {
    switch (c.what) {
      case ComponentClass::device: {
        const Device& d = t_.device(c.id);
        // A host CPU or PCIe switch takes its node down with it.
        if (d.kind == DeviceKind::cpu || d.kind == DeviceKind::pcie_switch)
          mask_.set_domain(d.domain, down ? DeviceState::down : DeviceState::up);
        mask_.set_device(c.id, down ? DeviceState::down : d.state);
        break;
      }
      case ComponentClass::link: mask_.set_link(c.id, down ? DeviceState::down : DeviceState::up); break;
      case ComponentClass::domain: mask_.set_domain(c.id, down ? DeviceState::down : DeviceState::up); break;
    }
    state_.set_mask(mask_);
  }

  void fail(const ComponentRate& c) {
    if (is_down(c)) return;
    ++out_.failures;
    std::set<std::uint32_t> hit_jobs;
    switch (c.what) {
      case ComponentClass::device: {
        const Device& d = t_.device(c.id);
        const Domain& owner = t_.domain(d.domain);
        if (is_accelerator(d.kind)) {
          const std::uint32_t a = t_.accelerator_index(c.id);
          jobs_in(a, a + 1, false, hit_jobs);
        } else if (d.kind == DeviceKind::cpu || d.kind == DeviceKind::pcie_switch) {
          jobs_in(owner.accel_begin, owner.accel_end, false, hit_jobs);
        } else {
          // NICs, NVSwitches, network switches: the jobs that communicate through their domain.
          jobs_in(owner.accel_begin, owner.accel_end, true, hit_jobs);
        }
        break;
      }
      case ComponentClass::link: {
        const Link& link = t_.link(c.id);
        const Domain& reach = t_.domain(common_domain(t_.device(link.a).domain, t_.device(link.b).domain));
        jobs_in(reach.accel_begin, reach.accel_end, true, hit_jobs);
        break;
      }
      case ComponentClass::domain: {
        const Domain& d = t_.domain(c.id);
        jobs_in(d.accel_begin, d.accel_end, false, hit_jobs);
        break;
      }
    }
    for (std::uint32_t j : hit_jobs) hit(j);
    if (c.repair_hours > 0) {
      set(c, true);
      repairs_.push({now_ + c.repair_hours * 3600.0, repair_order_++, c});
    }
  }

  void repair(const ComponentRate& c) {
    set(c, false);
    ++epoch_;
  }

  // When enough accelerators will be free for `need`, by the running jobs'
  // end times, and how many beyond `need` there will be then. At least one
  // release away: a job that fits by count but not by placement waits for
  // the next change.
  std::pair<double, std::uint64_t> reservation(std::uint64_t need, std::uint64_t free) const {
    std::uint64_t avail = free;
    for (const auto& [end, j] : by_end_) {
      avail += gpus(j);
      if (avail >= need) return {end, avail - need};
    }
    return {kInf, std::numeric_limits<std::uint64_t>::max()};
  }

  void schedule() {
    if (waiting_.empty()) return;
    std::uint64_t free = state_.occupancy().free_in(t_.root());
    // Nothing can start on a full cluster (every job asks for at least one
    // accelerator): the pass would only recompute a reservation it drops.
    if (free == 0 && s_.min_gpus > 0) return;
    bool reserved = false;
    double shadow = kInf;
    std::uint64_t extra = 0;
    std::vector<std::uint32_t> rest;
    rest.reserve(waiting_.size());
    for (std::uint32_t j : waiting_) {
      const std::uint64_t g = gpus(j);
      const bool ends_in_time = now_ + live_[j].remaining <= shadow;
      bool started = false;
      if (g <= free && (!reserved || ends_in_time || g <= extra)) {
        const std::uint32_t sh = s_.shape[j];
        if (failed_at_[sh] != epoch_) {
          PlannerState::PlaceResult r = state_.place(s_.jobs[j]);
          if (r.id != kNone) {
            start(j, r);
            started = true;
            free -= g;
            if (reserved && !ends_in_time) extra -= g;
          } else {
            failed_at_[sh] = epoch_;
          }
        }
        if (!started) out_.jobs[j].blocked_by_placement = true;
      }
      if (started) continue;
      rest.push_back(j);
      if (!reserved) {
        std::tie(shadow, extra) = reservation(g, free);
        reserved = true;
      }
    }
    waiting_ = std::move(rest);
  }

  const Simulator::Impl& s_;
  const Topology& t_;
  PlannerState state_;
  PlannerState probe_;
  ScenarioMask mask_;
  std::size_t n_;
  PolicyRun out_;
  std::vector<Live> live_;
  std::vector<std::uint32_t> owner_;    // PlannerState id -> job
  std::vector<std::int8_t> probe_ok_;   // per shape: -1 unknown, 0 no, 1 yes
  std::vector<std::string> probe_reason_;
  std::vector<std::uint64_t> failed_at_;  // per shape: the epoch it last failed to place in
  std::uint64_t epoch_ = 0;               // releases and repairs so far
  std::vector<std::uint32_t> waiting_;    // in queue order
  std::set<std::pair<double, std::uint32_t>> by_end_;  // running jobs by end time
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::priority_queue<Repair, std::vector<Repair>, std::greater<>> repairs_;
  std::uint64_t repair_order_ = 0;
  std::unique_ptr<FailureProcess> failures_;
  std::size_t next_arrival_ = 0;
  std::size_t done_ = 0;
  std::uint64_t busy_ = 0;
  std::uint32_t running_ = 0;
  double now_ = 0;
};

}  // namespace

PolicyRun Simulator::run(std::string_view policy) const { return Run(*impl_, policy).run(); }

}  // namespace topoplan
