// import --from openb-nodes: the node list of Alibaba's openb GPU cluster
// trace (cluster-trace-gpu-v2023, openb_node_list_*.csv; Weng et al., "Beware
// of Fragmentation", USENIX ATC'23) as a topology, so that its pod lists can
// be replayed where they ran (topoplan-formats(5), OPENB NODES, says the same
// for users):
//   sn,cpu_milli,memory_mib,gpu,model
//   openb-node-0227,32000,262144,0,
//   openb-node-0228,128000,786432,8,G3
// - Levels: cluster, node. One node a row, named and hostnamed `sn`, in file
//   order; `gpu` GPUs of model `model` (G1, G2, G3 are Alibaba's undisclosed
//   codes and stay as they are, so a pod's gpu_spec matches them), inside a
//   generic node (node_type.hpp: PCIe only, one NIC per GPU): the list says
//   nothing about NVLink.
// - cpu_milli and memory_mib become the node's allocatable cpu (millicores)
//   and memory (bytes), as a Kubernetes node list's would, and pods the
//   kubelet's default of 110 (the kueue policy counts pods).
// - Rows without GPUs (openb_node_list_all_node.csv has 310) are left out,
//   with a warning: a pod list's GPU pods cannot use them.
// - Fabric: the list has none; every NIC goes to one logical switch of
//   --fabric-link (ib-ndr by default), as k8s-nodes does for a list without
//   levels. Only placement and fragmentation are meaningful on it, not
//   collective costs between nodes.
#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "import_support.hpp"
#include "topoplan/formats/node_type.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/link_type.hpp"

namespace topoplan {

namespace {

struct Field {
  std::string_view text;
  int column = 1;
};

// One CSV line split at commas (the openb files quote nothing), a final CR dropped.
std::vector<Field> split_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<Field> fields;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    std::string_view text = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    fields.push_back({text, static_cast<int>(start) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::optional<std::int64_t> parse_count(std::string_view text, std::int64_t max) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > max) return std::nullopt;
  return v;
}

constexpr std::array<std::string_view, 3> kNeeded = {"sn", "gpu", "model"};

// The header's column of each name, or nothing: not an openb node list.
std::optional<std::map<std::string, std::size_t, std::less<>>> header_columns(std::string_view first_line) {
  std::map<std::string, std::size_t, std::less<>> column;
  std::vector<Field> f = split_line(first_line);
  for (std::size_t c = 0; c < f.size(); ++c) column.emplace(std::string(f[c].text), c);
  for (std::string_view name : kNeeded)
    if (!column.count(name)) return std::nullopt;
  return column;
}

std::string_view first_line(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte-order mark
  return text.substr(0, text.find('\n'));
}

}  // namespace

bool is_openb_node_list(std::string_view text) { return header_columns(first_line(text)).has_value(); }

namespace formats {

ImportResult import_openb_nodes(std::span<const ImportSource> sources, const ImportOptions& options) {
  const ImportSource& source = single_source(sources, "openb-nodes");
  auto fabric = find_link_type(options.fabric_link);
  if (!fabric) {
    std::string hint = did_you_mean(options.fabric_link, link_type_names());
    throw InputError({"--fabric-link", 0, 0}, fmt::format("unknown link type '{}'{}{}", options.fabric_link,
                                                          hint.empty() ? "" : "; ", hint));
  }
  std::string_view text = source.text;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  auto columns = header_columns(first_line(text));
  if (!columns)
    throw InputError({source.path, 1, 1}, fmt::format("an openb node list starts with a header naming the columns "
                                                      "{} (and cpu_milli, memory_mib)",
                                                      fmt::join(kNeeded, ", ")));
  const std::size_t width = split_line(first_line(text)).size();
  auto optional_column = [&](std::string_view name) {
    auto it = columns->find(name);
    return it == columns->end() ? width : it->second;
  };
  const std::size_t c_sn = columns->at("sn"), c_gpu = columns->at("gpu"), c_model = columns->at("model");
  const std::size_t c_cpu = optional_column("cpu_milli"), c_memory = optional_column("memory_mib");

  TopologyBuilder b(topology_name(sources, options), {"cluster", "node"});
  DiagnosticSink sink(formats::kMaxImportErrors);
  std::map<std::pair<std::int64_t, std::string>, NodeType> types;
  std::map<std::string, int, std::less<>> seen;  // sn -> line
  std::vector<DeviceId> nics;
  std::size_t without_gpus = 0, nodes = 0;
  std::size_t pos = text.find('\n');
  int line_number = 1;
  while (pos != std::string_view::npos && pos + 1 < text.size()) {
    const std::size_t start = pos + 1;
    pos = text.find('\n', start);
    ++line_number;
    std::string_view line = text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start);
    if (line.empty() || line == "\r") continue;
    std::vector<Field> f = split_line(line);
    auto at = [&](const Field& field) { return SourceLocation{source.path, line_number, field.column}; };
    if (f.size() != width) {
      sink.error({source.path, line_number, 1}, fmt::format("{} fields, but the header has {}", f.size(), width));
      continue;
    }
    const std::size_t errors = sink.size();
    if (f[c_sn].text.empty()) sink.error(at(f[c_sn]), "sn (the node's name) is empty");
    auto gpus = parse_count(f[c_gpu].text, 1024);
    if (!gpus) sink.error(at(f[c_gpu]), fmt::format("gpu is '{}'; it must be a whole number from 0 to 1024", f[c_gpu].text));
    std::optional<std::int64_t> cpu, memory;
    if (c_cpu < width && !f[c_cpu].text.empty() && !(cpu = parse_count(f[c_cpu].text, std::int64_t{1} << 40)))
      sink.error(at(f[c_cpu]), fmt::format("cpu_milli is '{}'; it must be a whole number of millicores", f[c_cpu].text));
    if (c_memory < width && !f[c_memory].text.empty() && !(memory = parse_count(f[c_memory].text, std::int64_t{1} << 32)))
      sink.error(at(f[c_memory]), fmt::format("memory_mib is '{}'; it must be a whole number of MiB", f[c_memory].text));
    if (sink.size() != errors) continue;
    const std::string name = formats::safe_name(f[c_sn].text);
    if (auto [it, fresh] = seen.emplace(name, line_number); !fresh) {
      sink.error(at(f[c_sn]), fmt::format("node '{}' is listed twice (first on line {})", name, it->second));
      continue;
    }
    if (*gpus == 0) {
      ++without_gpus;
      continue;
    }
    // "nan" is how the trace's pandas export wrote a missing model.
    std::string model = f[c_model].text.empty() || f[c_model].text == "nan" ? "GPU" : std::string(f[c_model].text);
    DomainId host = b.add_domain(b.root(), name, b.add_origin({source.path, line_number, 1}));
    b.set_hostname(host, name);
    NodeResources resources;
    // The kubelet's default maxPods (KubeletConfiguration, kubernetes.io
    // reference): the list does not give it, and Kueue counts pods.
    resources.allocatable.set("pods", 110);
    if (cpu) resources.allocatable.set("cpu", *cpu);
    if (memory) resources.allocatable.set("memory", *memory * 1024 * 1024);
    b.set_node_resources(host, std::move(resources));
    auto key = std::make_pair(*gpus, model);
    auto type = types.find(key);
    if (type == types.end()) type = types.emplace(key, NodeType::generic(static_cast<int>(*gpus), model)).first;
    std::vector<DeviceId> node_nics = type->second.instantiate(b, host);
    nics.insert(nics.end(), node_nics.begin(), node_nics.end());
    if (b.device_count() > TopologyLimits::max_devices)
      throw InputError({source.path, line_number, 1},
                       fmt::format("the topology would have more than {} devices", TopologyLimits::max_devices));
    ++nodes;
  }
  if (nodes == 0 && sink.empty()) sink.error({source.path, 0, 0}, "the list holds no node with GPUs");
  sink.throw_if_any();

  DeviceProperties p;
  p.model = "logical";
  DeviceId sw = b.add_device(b.root(), DeviceKind::network_switch, "sw", p);
  std::uint16_t type = b.link_type_index(*fabric);
  for (DeviceId nic : nics) b.add_link(nic, sw, type, 1, fabric->bandwidth, fabric->latency_us, 0);
  b.set_description(fmt::format("{} openb nodes from {} (Alibaba cluster-trace-gpu-v2023); no fabric in the list: "
                                "one logical {} switch",
                                nodes, source.path, fabric->name));
  ImportResult result;
  if (without_gpus)
    result.warnings.push_back({{source.path, 0, 0}, fmt::format("{} node{} without GPUs left out", without_gpus,
                                                               without_gpus == 1 ? "" : "s")});
  result.topology = b.finish(sink);
  return result;
}

}  // namespace formats

}  // namespace topoplan
