// export-plan --to slurm: a plan as a shell script of sbatch lines, one per
// placed job, each pinned to the plan's nodes; with --reservations, first an
// `scontrol create reservation` per job that holds its nodes.
//
// What pins a job (sbatch(1), Slurm 22.05 to 25.11):
// - --nodelist names the nodes, all of which the job gets, and --nodes their
//   number, so the job gets exactly those nodes or stays pending; the lists
//   are hostlists Slurm 22.05 reads back (slurm_hostlist()).
// - --exclusive where the job asked for whole nodes (a node count, exclusive,
//   exclusive_level) and for a tenant's job that fills its nodes (Slurm's
//   way to keep other tenants off them); a GPU count that happens to fill
//   nodes does not keep their CPUs from other jobs, as in the plan.
// - --gpus-per-node with the job's GPUs on each node; --gpus with the total
//   when nodes hold different counts (sbatch has one count per node).
// - --switches is not written: with the nodes named it could only delay the
//   start (up to max_switch_wait, 300 s by default) when the cluster's
//   topology.conf counts the nodes' leaf switches differently.
// Options on the command line override the batch script's #SBATCH lines.
//
// Reservations (scontrol(1), checked against slurmctld 22.05.8 in
// tests/scripts/plan_export_slurm.sh): Users= or Accounts= is required;
// a reservation is refused ("Requested nodes are busy") on nodes where jobs
// run unless Flags=IGNORE_JOBS, and ("overlaps with another reservation")
// on nodes of another reservation unless Flags=OVERLAP. A reservation holds
// whole nodes, so a job that shares nodes gets IGNORE_JOBS (the jobs already
// on them keep running), and OVERLAP when another job of the plan shares one.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "slurm_topology.hpp"
#include "topoplan/formats/job_layout.hpp"
#include "topoplan/io/hostlist.hpp"

namespace topoplan::formats {

namespace {

// A word the shell passes on as it is, else the text in single quotes.
std::string sh_word(std::string_view text) {
  bool plain = !text.empty();
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
    plain = plain && ok;
  }
  if (plain) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

// `--key=value` with the value quoted for the shell where needed.
std::string option(std::string_view key, std::string_view value) { return fmt::format("{}={}", key, sh_word(value)); }

// A reservation name Slurm's scontrol parses as one word: letters, digits,
// '.', '_' and '-' of the job's name, others as '_'.
std::string reservation_name(const std::string& job) {
  std::string out;
  for (char c : job) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    out += ok ? c : '_';
  }
  return out.empty() ? "job" : out;
}

// Text for a comment line: control characters (a newline would end the
// comment and run the rest) become '?'.
std::string comment_text(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < ' ' || c == 0x7f) c = '?';
  return out;
}

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// A Slurm value given on the command line of export-plan: one word, no
// quotes, no character that the script's shell or scontrol would split at.
void check_value(std::string_view option_name, const std::string& value, DiagnosticSink& sink) {
  if (value.empty()) {
    sink.error({std::string(option_name), 0, 0}, "must not be empty");
    return;
  }
  for (char c : value)
    if (static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '\'' || c == '\\' || c == '$' || c == '`') {
      sink.error({std::string(option_name), 0, 0},
                 fmt::format("'{}' must be one word of Slurm's syntax, without blanks or quotes", value));
      return;
    }
}

struct SlurmJob {
  std::size_t index = 0;  // in the plan
  JobLayout layout;
  std::string hostlist;
  std::string reservation;
};

// The script, job by job, and the warnings, kept in plan order whichever
// part of the script they come from.
class SlurmScript {
 public:
  SlurmScript(const Topology& t, const Plan& plan, const PlanExportOptions& o)
      : t_(t), plan_(plan), o_(o), warnings_(plan.jobs.size()) {}

  PlanExport write();

 private:
  void warn(std::size_t j, std::string message) {
    warnings_[j].push_back({plan_.jobs[j].where, fmt::format("job '{}': {}", plan_.jobs[j].name, message)});
  }
  void collect();
  std::string reservation(const SlurmJob& sj);
  std::string submission(const SlurmJob& sj);

  const Topology& t_;
  const Plan& plan_;
  const PlanExportOptions& o_;
  std::vector<std::vector<Diagnostic>> warnings_;
  std::vector<SlurmJob> jobs_;
  std::map<DomainId, int> jobs_on_node_;
  std::map<DomainId, std::uint32_t> planned_on_node_;  // accelerators of the plan's jobs
};

// The placed jobs, their layouts, hostlists and reservation names.
void SlurmScript::collect() {
  std::set<std::string> reservation_names;
  DiagnosticSink names;
  for (std::size_t j = 0; j < plan_.jobs.size(); ++j) {
    const JobPlacement& p = plan_.placements[j];
    if (!p.placed || p.occupied) continue;
    SlurmJob sj;
    sj.index = j;
    sj.layout = layout_of(t_, p);
    for (const NodeShare& s : sj.layout.nodes) {
      if (!slurm::slurm_safe(t_.hostname(s.node)))
        names.error(plan_.jobs[j].where, fmt::format("job '{}': hostname '{}' cannot be written in a Slurm hostlist",
                                                     plan_.jobs[j].name, t_.hostname(s.node)));
      ++jobs_on_node_[s.node];
      planned_on_node_[s.node] += s.accelerators;
    }
    sj.hostlist = slurm::slurm_hostlist(hostnames(t_, sj.layout.nodes));
    std::string base = reservation_name(plan_.jobs[j].name);
    sj.reservation = base;
    for (int n = 2; !reservation_names.insert(sj.reservation).second; ++n)
      sj.reservation = fmt::format("{}-{}", base, n);
    jobs_.push_back(std::move(sj));
  }
  names.throw_if_any();
}

std::string SlurmScript::reservation(const SlurmJob& sj) {
  std::vector<std::string> flags;
  bool shared = false;
  for (const NodeShare& s : sj.layout.nodes) shared |= jobs_on_node_[s.node] > 1;
  if (shared) flags.emplace_back("OVERLAP");
  if (!sj.layout.whole_nodes) {
    flags.emplace_back("IGNORE_JOBS");
    // Accelerators of a node that no job of the plan uses: held by the
    // reservation all the same.
    for (const NodeShare& s : sj.layout.nodes) {
      std::uint32_t all = t_.domain(s.node).accelerator_count();
      std::uint32_t left = all - std::min(all, planned_on_node_[s.node]);
      if (left == 0) continue;
      warn(sj.index, fmt::format("its reservation holds all of {} (Slurm reserves whole nodes), so jobs outside it "
                                 "cannot use the node's {} that the plan leaves to others",
                                 t_.hostname(s.node), plural(left, "accelerator")));
      break;
    }
  }
  std::string users = o_.reservation_users.empty() ? "\"$(id -un)\"" : sh_word(o_.reservation_users);
  return fmt::format("scontrol create reservation {} {} {} {} Users={}{}\n", option("ReservationName", sj.reservation),
                     option("Nodes", sj.hostlist), option("StartTime", o_.reservation_start),
                     option("Duration", o_.reservation_duration), users,
                     flags.empty() ? "" : fmt::format(" Flags={}", fmt::join(flags, ",")));
}

// The job's comment and sbatch line.
std::string SlurmScript::submission(const SlurmJob& sj) {
  const Job& job = plan_.jobs[sj.index];
  const JobPlacement& p = plan_.placements[sj.index];
  const JobLayout& l = sj.layout;
  const std::size_t accelerators = p.device_count();
  std::string out = fmt::format("\n# job {} ({}, {}): {} {}\n", comment_text(job.name),
                                job.kind == JobKind::training ? "training" : "inference",
                                plural(accelerators, std::string(kind_name(l.kind))), describe_nodes(l), sj.hostlist);
  if (p.replicas.size() > 1) {
    for (std::size_t r = 0; r < l.replica_nodes.size(); ++r)
      out += fmt::format("#   replica {}: {}\n", r, slurm::slurm_hostlist(hostnames(t_, l.replica_nodes[r])));
    warn(sj.index, fmt::format("Slurm runs its {} replicas as one job on all their nodes; start each replica's "
                               "steps on its own nodes (srun --nodelist, listed in the script)",
                               p.replicas.size()));
  }

  std::vector<std::string> args = {"sbatch", option("--job-name", job.name), fmt::format("--nodes={}", l.nodes.size()),
                                   option("--nodelist", sj.hostlist)};
  // Jobs that take whole nodes; and a tenant's job that fills its nodes,
  // for which --exclusive is how Slurm keeps other tenants off them.
  const bool exclusive = job.exclusive || job.nodes > 0 || job.exclusive_level.has_value() ||
                         (!job.tenant.empty() && l.whole_nodes);
  if (exclusive) args.emplace_back("--exclusive");
  if (l.mixed_kinds) {
    warn(sj.index, "its accelerators are of several kinds, for which sbatch has no single count");
  } else if (l.kind == DeviceKind::gpu) {
    args.push_back(l.per_node ? fmt::format("--gpus-per-node={}", l.per_node) : fmt::format("--gpus={}", accelerators));
  } else if (l.per_node) {
    args.push_back(fmt::format("--ntasks-per-node={}", l.per_node));
    warn(sj.index, fmt::format("Slurm has no standard resource for {0}s: --ntasks-per-node={1} asks for one task per "
                               "{0}; add the cluster's own --gres",
                               kind_name(l.kind), l.per_node));
  } else {
    warn(sj.index, fmt::format("Slurm has no standard resource for {}s, and the nodes hold different numbers of them",
                               kind_name(l.kind)));
  }
  if (o_.reservations) args.push_back(option("--reservation", sj.reservation));
  std::string script = o_.batch_script;
  for (std::size_t at = script.find("{name}"); at != std::string::npos; at = script.find("{name}", at + job.name.size()))
    script.replace(at, 6, job.name);
  args.push_back(sh_word(script));
  out += fmt::format("{}\n", fmt::join(args, " "));

  // What the line cannot say.
  if (!l.per_node && !l.mixed_kinds) {
    auto [few, many] = std::minmax_element(l.nodes.begin(), l.nodes.end(), [](const NodeShare& a, const NodeShare& b) {
      return a.accelerators < b.accelerators;
    });
    warn(sj.index, fmt::format("{} accelerators on {} but {} on {}: sbatch has one count per node, so Slurm splits "
                               "the {} among the nodes its own way",
                               few->accelerators, t_.hostname(few->node), many->accelerators,
                               t_.hostname(many->node), accelerators));
  }
  if (!l.whole_nodes && !exclusive) {
    auto part = std::find_if(l.nodes.begin(), l.nodes.end(), [](const NodeShare& s) { return !s.whole; });
    warn(sj.index, fmt::format("Slurm picks which {} of the {} on {} it gets", plural(part->accelerators, "accelerator"),
                               t_.domain(part->node).accelerator_count(), t_.hostname(part->node)));
  }
  if (!l.rank_order.empty())
    warn(sj.index, fmt::format("its ranks are not in Slurm's task order (node by node in node order, each node's "
                               "accelerators in index order): {}",
                               l.rank_order));
  if (job.exclusive_level)
    warn(sj.index, fmt::format("the plan keeps its {} to itself; sbatch has no option for that before Slurm 24.05's "
                               "--exclusive=topo (topology/block)",
                               *job.exclusive_level));
  if (!job.tenant.empty() && !exclusive)
    warn(sj.index, fmt::format("Slurm keeps tenant '{}' off other tenants' nodes only with --exclusive=user or mcs",
                               job.tenant));
  return out;
}

PlanExport SlurmScript::write() {
  collect();
  PlanExport result;
  std::string& out = result.text;
  out += "#!/bin/sh\n";
  out += "# Slurm submissions, written by topoplan export-plan\n";
  out += fmt::format("# plan: {}, topology: {}\n", comment_text(o_.plan_file.empty() ? "given" : o_.plan_file),
                     comment_text(o_.topology_argument.empty() ? t_.name() : o_.topology_argument));
  out += "# Each job is pinned to the nodes the plan chose: --nodelist names them and\n"
         "# --nodes counts them, so Slurm allocates exactly those or keeps the job pending.\n"
         "# These options override the #SBATCH lines of the batch scripts.\n";
  if (o_.reservations)
    out += "# First every job's nodes are held in a reservation named after the job, into\n"
           "# which the job is then submitted.\n";
  out += "set -e\n";
  for (std::size_t j = 0; j < plan_.jobs.size(); ++j) {
    const JobPlacement& p = plan_.placements[j];
    if (p.placed || p.occupied) continue;
    warn(j, "not placed in the plan, so not submitted");
    out += fmt::format("# job {}: not placed ({}), not submitted\n", comment_text(plan_.jobs[j].name),
                       comment_text(p.reason));
  }
  if (o_.reservations) {
    out += "\n# Reservations\n";
    for (const SlurmJob& sj : jobs_) out += reservation(sj);
  }
  for (const SlurmJob& sj : jobs_) out += submission(sj);
  for (auto& w : warnings_) result.warnings.insert(result.warnings.end(), w.begin(), w.end());
  return result;
}

}  // namespace

PlanExport export_plan_slurm(const Topology& t, const Plan& plan, const PlanExportOptions& o) {
  DiagnosticSink sink;
  if (o.batch_script.empty()) sink.error({"--batch-script", 0, 0}, "must not be empty");
  if (o.reservations) {
    check_value("--start", o.reservation_start, sink);
    check_value("--duration", o.reservation_duration, sink);
    if (!o.reservation_users.empty()) check_value("--users", o.reservation_users, sink);
  }
  sink.throw_if_any();
  return SlurmScript(t, plan, o).write();
}

}  // namespace topoplan::formats
