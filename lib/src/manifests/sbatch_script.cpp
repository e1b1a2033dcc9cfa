// Slurm batch scripts: the `#SBATCH` options before the first command, read
// the way sbatch reads them.
//
// Sources (read, not copied): Slurm doc/man/man1/sbatch.1 (options, "#SBATCH"
// directives end at the first non-comment, non-whitespace line; --switches,
// --segment, --exclusive[=user|mcs|topo], -N min[-max], --gpus [type:]n,
// --gres gpu[:type]:n), doc/html/topology.shtml (topology/tree leaf switches,
// topology/block segments within one block); summaries in the project's
// schedulers.md section 2.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "manifest_readers.hpp"
#include "workload.hpp"

namespace topoplan {

namespace {

enum class Arg : std::uint8_t { none, required, optional };

struct Option {
  std::string_view name;
  char short_name;  // 0 when it has none
  Arg arg;
};

// sbatch's options (sbatch(1), Slurm 25.x/26.x). Their argument kinds are
// what matters: `--opt value` takes the next word only for required ones.
constexpr Option kOptions[] = {
    {"account", 'A', Arg::required},        {"acctg-freq", 0, Arg::required},
    {"array", 'a', Arg::required},          {"batch", 0, Arg::required},
    {"bb", 0, Arg::required},               {"bbf", 0, Arg::required},
    {"begin", 'b', Arg::required},          {"chdir", 'D', Arg::required},
    {"cluster-constraint", 0, Arg::required}, {"clusters", 'M', Arg::required},
    {"comment", 0, Arg::required},          {"consolidate-segments", 0, Arg::none},
    {"constraint", 'C', Arg::required},     {"container", 0, Arg::required},
    {"container-id", 0, Arg::required},     {"contiguous", 0, Arg::none},
    {"core-spec", 'S', Arg::required},      {"cores-per-socket", 0, Arg::required},
    {"cpu-freq", 0, Arg::required},         {"cpus-per-gpu", 0, Arg::required},
    {"cpus-per-task", 'c', Arg::required},  {"deadline", 0, Arg::required},
    {"delay-boot", 0, Arg::required},       {"dependency", 'd', Arg::required},
    {"distribution", 'm', Arg::required},   {"error", 'e', Arg::required},
    {"exclude", 'x', Arg::required},        {"exclusive", 0, Arg::optional},
    {"export", 0, Arg::required},           {"export-file", 0, Arg::required},
    {"extra", 0, Arg::required},            {"extra-node-info", 'B', Arg::required},
    {"get-user-env", 0, Arg::optional},     {"gid", 0, Arg::required},
    {"gpu-bind", 0, Arg::required},         {"gpu-freq", 0, Arg::required},
    {"gpus", 'G', Arg::required},           {"gpus-per-node", 0, Arg::required},
    {"gpus-per-socket", 0, Arg::required},  {"gpus-per-task", 0, Arg::required},
    {"gres", 0, Arg::required},             {"gres-flags", 0, Arg::required},
    {"help", 'h', Arg::none},               {"hint", 0, Arg::required},
    {"hold", 'H', Arg::none},               {"ignore-pbs", 0, Arg::none},
    {"input", 'i', Arg::required},          {"job-name", 'J', Arg::required},
    {"kill-on-invalid-dep", 0, Arg::required}, {"licenses", 'L', Arg::required},
    {"mail-type", 0, Arg::required},        {"mail-user", 0, Arg::required},
    {"mcs-label", 0, Arg::required},        {"mem", 0, Arg::required},
    {"mem-bind", 0, Arg::required},         {"mem-per-cpu", 0, Arg::required},
    {"mem-per-gpu", 0, Arg::required},      {"mincpus", 0, Arg::required},
    {"network", 0, Arg::required},          {"nice", 0, Arg::optional},
    {"no-kill", 'k', Arg::optional},        {"no-requeue", 0, Arg::none},
    {"nodefile", 'F', Arg::required},       {"nodelist", 'w', Arg::required},
    {"nodes", 'N', Arg::required},          {"ntasks", 'n', Arg::required},
    {"ntasks-per-core", 0, Arg::required},  {"ntasks-per-gpu", 0, Arg::required},
    {"ntasks-per-node", 0, Arg::required},  {"ntasks-per-socket", 0, Arg::required},
    {"oom-kill-step", 0, Arg::optional},    {"open-mode", 0, Arg::required},
    {"output", 'o', Arg::required},         {"overcommit", 'O', Arg::none},
    {"oversubscribe", 's', Arg::none},      {"parsable", 0, Arg::none},
    {"partition", 'p', Arg::required},      {"prefer", 0, Arg::required},
    {"priority", 0, Arg::required},         {"profile", 0, Arg::required},
    {"propagate", 0, Arg::optional},        {"qos", 'q', Arg::required},
    {"quiet", 'Q', Arg::none},              {"reboot", 0, Arg::none},
    {"requeue", 0, Arg::none},              {"reservation", 0, Arg::required},
    {"resv-ports", 0, Arg::optional},       {"segment", 0, Arg::required},
    {"signal", 0, Arg::required},           {"sockets-per-node", 0, Arg::required},
    {"spread-job", 0, Arg::none},           {"spread-segments", 0, Arg::none},
    {"switches", 0, Arg::required},         {"test-only", 0, Arg::none},
    {"thread-spec", 0, Arg::required},      {"threads-per-core", 0, Arg::required},
    {"time", 't', Arg::required},           {"time-min", 0, Arg::required},
    {"tmp", 0, Arg::required},              {"tres-bind", 0, Arg::required},
    {"tres-per-task", 0, Arg::required},    {"uid", 0, Arg::required},
    {"usage", 0, Arg::none},                {"use-min-nodes", 0, Arg::none},
    {"verbose", 'v', Arg::none},            {"version", 'V', Arg::none},
    {"wait", 'W', Arg::none},               {"wait-all-nodes", 0, Arg::required},
    {"wckey", 0, Arg::required},            {"wrap", 0, Arg::required},
};

// Options a GPU plan cannot honour: the job is planned without them.
constexpr std::string_view kNotHonoured[] = {"constraint", "nodelist", "exclude", "prefer", "contiguous",
                                             "spread-job", "consolidate-segments", "spread-segments", "array",
                                             "nodefile"};

struct Word {
  std::string text;
  int column = 0;
};

// Splits a directive's text into words as sbatch does: whitespace separates,
// quotes group, an unquoted '#' starts a comment.
std::vector<Word> split_words(std::string_view text, int first_column) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] == '#') break;
    Word w;
    w.column = first_column + static_cast<int>(i);
    char quote = 0;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (quote) {
        if (c == quote)
          quote = 0;
        else
          w.text += c;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        break;
      } else {
        w.text += c;
      }
    }
    words.push_back(std::move(w));
  }
  return words;
}

struct Given {
  std::string value;
  SourceLocation where;
  bool present = false;
};

class ScriptReader {
 public:
  ScriptReader(const std::string& file, const LevelMap& levels, ManifestJobs& out, DiagnosticSink& sink)
      : file_(file), levels_(levels), out_(out), sink_(sink) {}

  void read(std::string_view text);

 private:
  void option(const Option& o, std::string value, const SourceLocation& where);
  void finish(const SourceLocation& script);
  std::optional<long long> number(const Given& g, std::string_view what, long long min, long long max);
  // "[type:]count" of --gpus and --gpus-per-node; records the type as the model.
  std::optional<long long> gpu_count(const Given& g, std::string_view what);
  void warn(const SourceLocation& where, const std::string& message) {
    out_.warnings.push_back({where, fmt::format("sbatch script '{}': {}", name_, message)});
  }

  const std::string& file_;
  const LevelMap& levels_;
  ManifestJobs& out_;
  DiagnosticSink& sink_;
  std::string name_;
  std::map<std::string, Given, std::less<>> given_;
  std::string model_;
};

void ScriptReader::read(std::string_view text) {
  // Job name: -J, else the script's file name without its extension.
  std::string base = file_.substr(file_.rfind('/') == std::string::npos ? 0 : file_.rfind('/') + 1);
  if (auto dot = base.rfind('.'); dot != std::string::npos && dot > 0) base.resize(dot);
  name_ = base == "-" || base.empty() ? "stdin" : base;
  int line = 0;
  std::size_t start = 0;
  bool hetjob = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view l = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() : end + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    std::size_t first = l.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    if (l[first] != '#') break;  // the first command ends the directives
    if (l.substr(0, 7) != "#SBATCH") continue;
    std::vector<Word> words = split_words(l.substr(7), 8);
    for (std::size_t i = 0; i < words.size(); ++i) {
      const Word& w = words[i];
      SourceLocation where{file_, line, w.column};
      if (w.text == "hetjob" || w.text == "packjob" || w.text == ":") {
        if (!hetjob) warn(where, "a heterogeneous job: topoplan plans its first component only");
        hetjob = true;
        break;
      }
      if (hetjob) break;
      const Option* found = nullptr;
      std::string value;
      bool has_value = false;
      if (w.text.rfind("--", 0) == 0) {
        std::string name = w.text.substr(2);
        if (auto eq = name.find('='); eq != std::string::npos) {
          value = name.substr(eq + 1);
          name.resize(eq);
          has_value = true;
        }
        for (const Option& o : kOptions)
          if (o.name == name) found = &o;
        if (!found) {
          std::vector<std::string> names;
          for (const Option& o : kOptions) names.push_back("--" + std::string(o.name));
          std::string hint = did_you_mean("--" + name, names);
          sink_.error(where, fmt::format("sbatch has no option '--{}'{}{}", name, hint.empty() ? "" : "; ", hint));
          continue;
        }
      } else if (w.text.size() >= 2 && w.text[0] == '-' && w.text[1] != '-') {
        for (const Option& o : kOptions)
          if (o.short_name == w.text[1]) found = &o;
        if (!found) {
          sink_.error(where, fmt::format("sbatch has no option '-{}'", w.text[1]));
          continue;
        }
        if (w.text.size() > 2) {
          value = w.text.substr(2);
          has_value = true;
        }
      } else {
        sink_.error(where, fmt::format("'{}' is not an sbatch option", w.text));
        continue;
      }
      if (found->arg == Arg::none && has_value) {
        sink_.error(where, fmt::format("--{} takes no value", found->name));
        continue;
      }
      if (found->arg == Arg::required && !has_value) {
        if (i + 1 >= words.size()) {
          sink_.error(where, fmt::format("--{} needs a value", found->name));
          continue;
        }
        value = words[++i].text;
      }
      option(*found, value, where);
    }
  }
  finish({file_, 1, 1});
}

void ScriptReader::option(const Option& o, std::string value, const SourceLocation& where) {
  // Later directives override earlier ones, as on sbatch's command line.
  given_[std::string(o.name)] = Given{std::move(value), where, true};
  if (o.name == "job-name") name_ = given_["job-name"].value;
}

std::optional<long long> ScriptReader::number(const Given& g, std::string_view what, long long min, long long max) {
  auto v = yaml::parse_integer(g.value);
  if (!v) {
    sink_.error(g.where, fmt::format("--{} takes a whole number, not '{}'", what, g.value));
    return std::nullopt;
  }
  if (*v < min || *v > max) {
    sink_.error(g.where, fmt::format("--{} is {}; it must be between {} and {}", what, *v, min, max));
    return std::nullopt;
  }
  return v;
}

std::optional<long long> ScriptReader::gpu_count(const Given& g, std::string_view what) {
  Given count = g;
  if (auto colon = g.value.rfind(':'); colon != std::string::npos) {
    count.value = g.value.substr(colon + 1);
    std::string type = g.value.substr(0, colon);
    if (auto c2 = type.rfind(':'); c2 != std::string::npos) type = type.substr(c2 + 1);
    if (type != "gpu" && !type.empty()) {
      // Slurm GPU types are site-defined (h100, a100...); topology models are
      // upper-case product names (H100, GB200).
      for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      model_ = "*" + type + "*";
    }
  }
  return number(count, what, 0, 1'000'000);
}

void ScriptReader::finish(const SourceLocation& script) {
  WorkloadSpec w;
  w.name = name_;
  w.what = "sbatch script";
  w.where = script;
  w.count_pods = false;
  auto get = [&](std::string_view name) -> const Given* {
    auto it = given_.find(name);
    return it == given_.end() ? nullptr : &it->second;
  };
  std::size_t errors = sink_.size();
  for (std::string_view name : kNotHonoured)
    if (const Given* g = get(name)) warn(g->where, fmt::format("--{} is not honoured", name));

  std::optional<long long> nodes;
  if (const Given* g = get("nodes")) {
    // -N min[-max]: the job can start with min nodes, so min is what must fit.
    Given min = *g;
    if (auto dash = g->value.find('-'); dash != std::string::npos) {
      min.value = g->value.substr(0, dash);
      Given max{g->value.substr(dash + 1), g->where, true};
      auto hi = number(max, "nodes", 1, 10'000'000);
      if (hi && yaml::parse_integer(min.value) && *hi != *yaml::parse_integer(min.value))
        warn(g->where, fmt::format("-N {}: topoplan plans the minimum, {} nodes", g->value, min.value));
    }
    nodes = number(min, "nodes", 1, 10'000'000);
  }
  std::optional<long long> per_node;
  if (const Given* g = get("gpus-per-node")) per_node = gpu_count(*g, "gpus-per-node");
  if (const Given* g = get("gres")) {
    // --gres=gpu[:type]:count[,other...]: GPUs per node.
    std::string gres = g->value;
    for (std::size_t pos = 0; pos <= gres.size();) {
      std::size_t comma = gres.find(',', pos);
      std::string item = gres.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (item.rfind("gpu", 0) == 0) {
        Given one{item.find(':') == std::string::npos ? "1" : item, g->where, true};
        if (!per_node) per_node = gpu_count(one, "gres");
      }
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  std::optional<long long> total;
  const Given* total_from = nullptr;  // the option the total came from
  if (const Given* g = get("gpus")) {
    total = gpu_count(*g, "gpus");
    total_from = g;
  }
  if (const Given* g = get("gpus-per-task")) {
    auto per_task = gpu_count(*g, "gpus-per-task");
    std::optional<long long> tasks;
    if (const Given* n = get("ntasks")) tasks = number(*n, "ntasks", 1, 10'000'000);
    else if (const Given* pn = get("ntasks-per-node")) {
      auto per = number(*pn, "ntasks-per-node", 1, 1'000'000);
      if (per) tasks = *per * nodes.value_or(1);
    }
    // Without -n, sbatch runs one task per node (sbatch(1), --ntasks).
    if (!tasks) tasks = nodes.value_or(1);
    if (per_task && !total) {
      if (*per_task > 0 && *tasks > 100'000'000 / *per_task)
        sink_.error(g->where, fmt::format("--gpus-per-task {} x {} tasks are more GPUs than topoplan plans", *per_task,
                                          *tasks));
      else {
        total = *per_task * *tasks;
        total_from = g;
      }
    }
  }
  if (sink_.size() != errors) return;

  const std::uint32_t node_size = typical_node_accelerators(levels_.topology());
  PodSet s;
  s.name = "nodes";
  s.where = script;
  w.exclusive = std::nullopt;
  bool exclusive = get("exclusive") != nullptr;
  for (std::string_view key : {"gpus-per-task", "gpus", "gres", "gpus-per-node"})
    if (const Given* g = get(key)) s.where = g->where;
  if (per_node) {
    s.pods = static_cast<std::uint64_t>(nodes.value_or(1));
    s.accelerators = static_cast<std::uint32_t>(*per_node);
  } else if (total && nodes && *total % *nodes == 0) {
    s.pods = static_cast<std::uint64_t>(*nodes);
    s.accelerators = static_cast<std::uint32_t>(*total / *nodes);
  } else if (total) {
    if (nodes)
      warn(total_from ? total_from->where : script,
           fmt::format("{} GPUs do not split evenly over {} nodes; topoplan plans {} GPUs", *total, *nodes, *total));
    s.pods = static_cast<std::uint64_t>(*total);
    s.accelerators = 1;
  } else {
    s.pods = static_cast<std::uint64_t>(nodes.value_or(1));
    if (!exclusive)
      warn(script, fmt::format("asks for no GPUs; topoplan plans its {} node{} as whole nodes", s.pods,
                               s.pods == 1 ? "" : "s"));
    exclusive = true;
  }
  // A job with nodes to itself, or GPUs counted per node of the full node size.
  w.whole_nodes = exclusive || (s.accelerators > 0 && s.accelerators == node_size && per_node.has_value());
  if (s.accelerators == 0 && !w.whole_nodes) {
    s.accelerators = 0;
    w.whole_nodes = true;
  }

  if (const Given* g = get("segment")) {
    if (auto size = number(*g, "segment", 1, 10'000'000)) {
      if (!nodes || static_cast<std::uint64_t>(*size) > s.pods || s.pods % static_cast<std::uint64_t>(*size) != 0) {
        out_.rejections.push_back(
            {g->where, fmt::format("sbatch script '{}': --segment={} must divide the job's {} node{} (-N)", name_,
                                   *size, s.pods, s.pods == 1 ? "" : "s")});
        return;
      }
      s.slice = LevelRequest{levels_.block_level(), g->where, "--segment"};
      s.slice_size = static_cast<std::uint64_t>(*size);
    }
  }
  if (const Given* g = get("switches")) {
    // --switches=count[@max-time]: at most count leaf switches; Slurm waits
    // up to max-time (max_switch_wait, 300 s by default) and then gives up
    // the constraint, which topoplan cannot model: one switch is required.
    Given count = *g;
    if (auto at = g->value.find('@'); at != std::string::npos) count.value = g->value.substr(0, at);
    if (auto n = number(count, "switches", 1, 1'000'000)) {
      if (*n == 1)
        w.required = LevelRequest{levels_.leaf_level(), g->where, "--switches"};
      else {
        w.preferred = LevelRequest{levels_.leaf_level(), g->where, "--switches"};
        warn(g->where, fmt::format("--switches={}: topoplan cannot count leaf switches; it uses as few {}s as it can",
                                   *n, levels_.level_name(levels_.leaf_level())));
      }
    }
  }
  if (const Given* g = get("partition")) w.queue = g->value;
  if (const Given* g = get("priority")) {
    if (auto p = number(*g, "priority", 0, 4'294'967'294LL)) w.priority = *p;
  }
  if (const Given* g = get("nice")) {
    // sbatch --nice without a value is +100; a positive nice lowers priority.
    Given n = *g;
    if (n.value.empty()) n.value = "100";
    if (auto v = number(n, "nice", -2'147'483'645LL, 2'147'483'645LL)) w.priority -= *v;
  }
  // --comment is free text to Slurm; a word topoplan.io/perf-class=NAME in
  // it names the job's workload class of --device-perf.
  if (const Given* g = get("comment")) {
    const std::string key = std::string(kPerfClass) + "=";
    std::size_t at = g->value.find(key);
    while (at != std::string::npos && at > 0 && g->value[at - 1] != ' ' && g->value[at - 1] != ',' &&
           g->value[at - 1] != ';')
      at = g->value.find(key, at + 1);
    if (at != std::string::npos) {
      const std::size_t begin = at + key.size();
      const std::size_t end = g->value.find_first_of(" ,;", begin);
      w.perf_class = g->value.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      w.perf_class_where = g->where;
      if (w.perf_class.empty())
        sink_.error(g->where, fmt::format("--comment: {}= names a workload class of --device-perf; give a name",
                                          kPerfClass));
    }
  }
  w.model = model_;
  w.pod_sets.push_back(s);
  if (sink_.size() != errors) return;
  if (auto job = to_job(w, levels_, out_)) out_.jobs.push_back(std::move(*job));
}

}  // namespace

void read_sbatch_script(std::string_view text, const std::string& file, const LevelMap& levels, ManifestJobs& out,
                        DiagnosticSink& sink) {
  ScriptReader(file, levels, out, sink).read(text);
}

}  // namespace topoplan
