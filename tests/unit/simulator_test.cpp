// The simulator: a tiny trace checked by hand under naive and topo, the
// queue and backfill rule, the slowdown as documented, failures, and
// invariants on the public traces.
#include "topoplan/simulate/simulator.hpp"

#include <catch2/catch.hpp>

#include "source_dir.hpp"
#include "test_presets.hpp"
#include "topoplan/io/failure_rates.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

Trace csv(const std::string& text) { return read_trace(text, "trace.csv", {}); }

std::string slurp(const std::string& relative) { return topoplan::test::source_file(relative); }

const JobOutcome& job(const PolicyRun& run, const Trace& trace, const std::string& id) {
  for (std::size_t i = 0; i < trace.jobs.size(); ++i)
    if (trace.jobs[i].id == id) return run.jobs[i];
  FAIL("no job " << id);
  return run.jobs.front();
}

// The factor the model documents: 1 + scale * f * (step / ideal - 1).
double documented_factor(const JobOutcome& o, double scale = 1.0) {
  return std::max(1.0, 1.0 + scale * o.comm_fraction * (o.step_s / o.ideal_step_s - 1.0));
}

// 16 GPUs: two DGX H100 nodes of 8.
//   a  t=0   6 GPUs 100 s  -> starts at once
//   b  t=10  4 GPUs 1000 s -> starts at once (topo: node 1; naive: node 0's
//                             last 2 and node 1's first 2, across nodes)
//   f  t=15 32 GPUs        -> larger than the cluster: never starts, blocks nothing
//   c  t=20  8 GPUs 50 s   -> 6 free: waits, and gets the reservation at 100
//                             (a's end: 6 + 6 = 12 >= 8, 4 to spare)
//   e  t=25  5 GPUs 500 s  -> fits the 6 free, but would end after 100 and
//                             needs more than the 4 to spare: waits
//   d  t=30  2 GPUs 40 s   -> ends at 70, before the reservation: backfilled
// At 100 a ends and c starts (topo: all of node 0; naive: node 0's first 6
// and 2 of node 1, across nodes); e starts when c ends.
const char* kTiny =
    "id,submit_s,gpus,duration_s,comm_fraction\n"
    "a,0,6,100,0.5\n"
    "b,10,4,1000,0.5\n"
    "f,15,32,10,0.5\n"
    "c,20,8,50,0.5\n"
    "e,25,5,500,0.5\n"
    "d,30,2,40,0.5\n";

}  // namespace

TEST_CASE("simulator: a tiny trace under topo, checked by hand") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = csv(kTiny);
  Simulator sim(t, trace, {});
  PolicyRun run = sim.run("topo");
  struct Expect {
    const char* id;
    double start, end;
  };
  for (const Expect& x : {Expect{"a", 0, 100}, Expect{"b", 10, 1010}, Expect{"c", 100, 150},
                          Expect{"e", 150, 650}, Expect{"d", 30, 70}}) {
    INFO(x.id);
    const JobOutcome& o = job(run, trace, x.id);
    CHECK(o.start_s == x.start);
    CHECK(o.end_s == x.end);
    CHECK(o.slowdown == 1.0);  // topo places each in one node: the ideal
  }
  const JobOutcome& f = job(run, trace, "f");
  CHECK(f.start_s < 0);
  CHECK(f.end_s < 0);
  CHECK_FALSE(f.reason.empty());
  CHECK(run.start_s == 0);
  CHECK(run.end_s == 1010);
  // Busy GPU-seconds: 6x100 + 4x1000 + 8x50 + 5x500 + 2x40.
  CHECK(run.busy_accelerator_s == Approx(600 + 4000 + 400 + 2500 + 80));
}

TEST_CASE("simulator: the tiny trace under naive, checked by hand") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = csv(kTiny);
  Simulator sim(t, trace, {});
  PolicyRun run = sim.run("naive");
  const JobOutcome& a = job(run, trace, "a");
  const JobOutcome& b = job(run, trace, "b");
  const JobOutcome& c = job(run, trace, "c");
  const JobOutcome& d = job(run, trace, "d");
  const JobOutcome& e = job(run, trace, "e");
  CHECK(a.start_s == 0);
  CHECK(a.end_s == 100);
  CHECK(d.start_s == 30);
  CHECK(d.end_s == 70);
  // b and c span both nodes: slower than on one node, by the documented factor.
  CHECK(b.start_s == 10);
  CHECK(b.slowdown > 1.0);
  CHECK(b.slowdown == Approx(documented_factor(b)));
  CHECK(b.end_s == Approx(10 + 1000 * b.slowdown));
  CHECK(c.start_s == 100);
  CHECK(c.slowdown > 1.0);
  CHECK(c.end_s == Approx(100 + 50 * c.slowdown));
  // e waits for c (a reservation-breaking backfill is refused), then fits in node 0.
  CHECK(e.start_s == c.end_s);
  CHECK(e.slowdown == 1.0);
  CHECK(e.end_s == Approx(c.end_s + 500));
  CHECK(job(run, trace, "f").start_s < 0);
}

TEST_CASE("simulator: priority goes before arrival in the queue") {
  Topology t = preset("dgx-h100:nodes=1");
  // x holds the node; y and z each need all of it; z has the higher priority.
  Trace trace = csv(
      "id,submit_s,gpus,duration_s,priority\n"
      "x,0,8,100,0\n"
      "y,1,8,100,0\n"
      "z,2,8,100,5\n");
  for (const char* policy : {"topo", "naive", "slurm", "kueue"}) {
    INFO(policy);
    PolicyRun run = Simulator(t, trace, {}).run(policy);
    CHECK(job(run, trace, "z").start_s == 100);
    CHECK(job(run, trace, "y").start_s == 200);
    CHECK(job(run, trace, "y").end_s == 300);
  }
}

TEST_CASE("simulator: the slowdown scale weighs the model, 0 turns it off") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = csv(kTiny);
  SimulationOptions half;
  half.slowdown.scale = 0.5;
  SimulationOptions off;
  off.slowdown.scale = 0;
  const JobOutcome full_b = job(Simulator(t, trace, {}).run("naive"), trace, "b");
  const JobOutcome half_b = job(Simulator(t, trace, half).run("naive"), trace, "b");
  const JobOutcome off_b = job(Simulator(t, trace, off).run("naive"), trace, "b");
  CHECK(half_b.slowdown == Approx(1 + 0.5 * (full_b.slowdown - 1)));
  CHECK(half_b.slowdown == Approx(documented_factor(half_b, 0.5)));
  CHECK(off_b.slowdown == 1.0);
  CHECK(off_b.end_s == 1010);
}

TEST_CASE("simulator: the communication share comes from the trace, else the flag, else the size") {
  Topology t = preset("dgx-h100:nodes=4");
  Trace trace = csv(
      "id,submit_s,gpus,duration_s,comm_fraction\n"
      "own,0,16,10,0.7\n"
      "one,0,1,10,\n"
      "node,0,8,10,\n"
      "big,0,16,10,\n");
  PolicyRun by_size = Simulator(t, trace, {}).run("topo");
  CHECK(job(by_size, trace, "own").comm_fraction == 0.7);
  CHECK(job(by_size, trace, "one").comm_fraction == 0.0);
  CHECK(job(by_size, trace, "node").comm_fraction == 0.10);
  CHECK(job(by_size, trace, "big").comm_fraction == 0.20);
  SimulationOptions flag;
  flag.slowdown.comm_fraction = 0.4;
  PolicyRun flagged = Simulator(t, trace, flag).run("topo");
  CHECK(job(flagged, trace, "own").comm_fraction == 0.7);
  CHECK(job(flagged, trace, "one").comm_fraction == 0.0);
  CHECK(job(flagged, trace, "big").comm_fraction == 0.4);
}

TEST_CASE("simulator: failures send jobs back from their last checkpoint, the same for a seed") {
  Topology t = preset("dgx-h100:nodes=4");
  // Rates far above reality so that a short trace sees failures.
  FailureRates rates = parse_failure_rates(
      "rates:\n  - {component: gpu, per_day: 0.5, repair_hours: 1}\n", "rates.yaml", t);
  std::string text = "id,submit_s,gpus,duration_s\n";
  for (int i = 0; i < 40; ++i) text += "j" + std::to_string(i) + "," + std::to_string(i * 600) + ",8,20000\n";
  Trace trace = csv(text);
  SimulationOptions o;
  o.failures = &rates;
  o.seed = 7;
  o.checkpoint_interval_s = 1800;
  PolicyRun first = Simulator(t, trace, o).run("topo");
  PolicyRun again = Simulator(t, trace, o).run("topo");
  REQUIRE(first.failures > 0);
  CHECK(first.jobs_hit > 0);
  CHECK(first.lost_accelerator_s > 0);
  // Work lost per hit is less than one checkpoint interval on the job's GPUs.
  CHECK(first.lost_accelerator_s < static_cast<double>(first.jobs_hit) * 1800 * 8);
  CHECK(first.failures == again.failures);
  std::uint32_t restarts = 0;
  for (std::size_t i = 0; i < first.jobs.size(); ++i) {
    CHECK(first.jobs[i].start_s == again.jobs[i].start_s);
    CHECK(first.jobs[i].end_s == again.jobs[i].end_s);
    restarts += first.jobs[i].restarts;
    if (first.jobs[i].end_s >= 0) CHECK(first.jobs[i].end_s - first.jobs[i].start_s >= 20000);
  }
  CHECK(restarts == first.jobs_hit);
  o.seed = 8;
  PolicyRun other = Simulator(t, trace, o).run("topo");
  bool differs = other.failures != first.failures;
  for (std::size_t i = 0; i < first.jobs.size(); ++i) differs = differs || other.jobs[i].end_s != first.jobs[i].end_s;
  CHECK(differs);
}

TEST_CASE("simulator: invariants on the public traces") {
  struct Case {
    const char* topology;
    const char* file;
    TraceSettings settings;
  };
  const Case cases[] = {
      {"dgx-h100:nodes=16", "tests/data/traces/gavel-philly-vc2869ce.trace", {}},
      {"dgx-h100:nodes=16", "tests/data/traces/openb_pod_list_default.csv", {{{"sharing", "skip"}}, ""}},
      {"gb200-nvl72:racks=2", "tests/data/traces/acme-cluster-summary.csv",
       {{{"cluster", "Kalos"}, {"jobs", "300"}, {"load", "1.2"}}, ""}},
  };
  for (const Case& k : cases) {
    INFO(k.file);
    Topology t = preset(k.topology);
    TraceOptions options;
    options.settings = k.settings;
    options.accelerators = t.accelerators().size();
    Trace trace = read_trace(slurp(k.file), k.file, options);
    REQUIRE(trace.jobs.size() > 100);
    Simulator sim(t, trace, {});
    for (const char* policy : {"topo", "naive", "slurm", "kueue"}) {
      INFO(policy);
      PolicyRun run = sim.run(policy);
      PolicyRun again = sim.run(policy);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < run.jobs.size(); ++i) {
        const JobOutcome& o = run.jobs[i];
        const TraceJob& tj = trace.jobs[i];
        const bool fits = tj.gpus <= t.accelerators().size();
        // Every job that fits the cluster ends; none ends before its duration.
        if (fits && o.end_s < 0) ++wrong;
        // (1 µs of slack: times are absolute, so submit + duration - submit rounds)
        if (o.end_s >= 0 && o.end_s - o.submit_s < tj.duration_s - 1e-6) ++wrong;
        if (o.start_s >= 0 && o.start_s < o.submit_s) ++wrong;
        if (o.slowdown < 1) ++wrong;
        if (o.start_s != again.jobs[i].start_s || o.end_s != again.jobs[i].end_s) ++wrong;
      }
      CHECK(wrong == 0);
      for (const TimelinePoint& p : run.timeline) {
        CHECK(p.utilisation >= 0);
        CHECK(p.utilisation <= 1 + 1e-9);
      }
      CHECK(run.busy_accelerator_s <= static_cast<double>(run.accelerators) * (run.end_s - run.start_s) * (1 + 1e-9));
    }
  }
}
