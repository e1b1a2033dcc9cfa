// --from nvidia-smi: the matrix `nvidia-smi topo -m` prints, as one node of
// levels [cluster, node].
//
// The matrix only ranks how far apart two devices are (the legend nvidia-smi
// prints below it): X self, NV# a bonded set of # NVLinks, PIX at most one
// PCIe bridge, PXB several bridges without the host bridge, PHB through a host
// bridge, NODE between host bridges of one NUMA node, SYS across the SMP
// interconnect (older drivers print SOC for SYS). Columns are GPUk, NICk (the
// "NIC Legend" below names them, e.g. NIC0: mlx5_0) or, from older drivers,
// the NIC names themselves (mlx5_0), then CPU Affinity, NUMA Affinity and GPU
// NUMA ID. Lines before the header (a shell prompt) and the legends after the
// matrix are skipped; cells may be separated by tabs or spaces.
//
// The node is inferred, and the import always warns that it is lossy:
//  - CPUs: devices closer than SYS (PIX, PXB, PHB, NODE) share a CPU, and so do
//    GPUs with the same NUMA Affinity (or, without it, CPU Affinity); each
//    such group is one cpu, numbered by its first device; CPUs are joined
//    pairwise by `upi` (the vendor is not in the matrix).
//  - PCIe switches: devices at PIX from one another share a switch; groups at
//    PXB from one another hang below a common upper switch; everything else
//    (PHB, NODE) attaches to its CPU. GPU pairs joined by NVLink show NV#
//    instead of their PCIe relation, so their switches are found through the
//    NICs they share.
//  - NVLink: when every pair of an NVLink-connected group of GPUs shows the
//    same NV# and no GPU could have that many direct links (count x peers
//    above 18, the most any NVIDIA GPU has), the group sits on one NVSwitch
//    with # links per GPU (DGX/HGX); otherwise each pair gets # direct links.
//    The generation follows from --gpu-model when given (a B200 shows NV18
//    like an H100), else it is guessed from the links per GPU: 18 or more
//    NVLink 4 (H100/H200), 12 NVLink 3 (A100), fewer NVLink 2.
//  - PCIe links: Gen5 x16 next to NVLink 4 and 5, Gen4 x16 next to NVLink 3
//    or without NVLink, Gen3 x16 next to NVLink 2. GPU models (unless
//    --gpu-model), memory and NIC speeds are not in the matrix.
#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "support/disjoint_sets.hpp"
#include "format_functions.hpp"
#include "import_support.hpp"
#include "topoplan/cost/gpu_generation.hpp"

namespace topoplan::formats {

namespace {

enum class Relation : std::uint8_t { self, nvlink, pix, pxb, phb, node, sys };

struct Cell {
  Relation relation = Relation::sys;
  int links = 0;  // NV#
};

struct Token {
  std::string_view text;
  int column = 0;  // 1-based
};

std::vector<Token> tokens_of(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The NVLink generation of an NVIDIA GPU model (gpu_generation.hpp's table:
// Volta NVLink 2, Ampere 3, Hopper 4, Blackwell 5); --gpu-model must name one.
int generation_of(const std::string& model) {
  std::optional<Generation> g = generation_from_model(model);
  switch (g.value_or(Generation::lpu)) {
    case Generation::volta: return 2;
    case Generation::ampere: return 3;
    case Generation::hopper: return 4;
    case Generation::blackwell: return 5;
    default: break;
  }
  throw InputError({"--gpu-model", 0, 0},
                   fmt::format("'{}' is not an NVIDIA GPU model topoplan knows (V100, A100, H100, H200, H800, GH200, "
                               "B200, B300, GB200, GB300, ...): nvidia-smi's matrix needs one for its NVLink generation",
                               model));
}

class Importer {
 public:
  Importer(const ImportSource& source, const ImportOptions& options)
      : source_(source), name_(topology_name({&source, 1}, options)), gpu_model_(options.gpu_model) {
    if (!gpu_model_.empty()) given_generation_ = generation_of(gpu_model_);
  }

  ImportResult run() {
    split_lines();
    read_matrix();
    sink_.throw_if_any();
    return build();
  }

 private:
  SourceLocation at(std::size_t line, int column) const {
    return {source_.path, static_cast<int>(line) + 1, column};
  }

  void split_lines() {
    std::string_view text = source_.text;
    if (text.size() > (64u << 20)) throw InputError({source_.path, 0, 0}, "the file is larger than 64 MiB");
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines_.push_back(line);
      start = end + 1;
    }
  }

  void read_matrix() {
    std::size_t header = lines_.size();
    for (std::size_t i = 0; i < lines_.size() && header == lines_.size(); ++i) {
      std::vector<Token> t = tokens_of(lines_[i]);
      if (t.size() >= 2 && t[0].text == "GPU0" && t[1].text != "X") header = i;
    }
    if (header == lines_.size())
      throw InputError({source_.path, 1, 1},
                       "no `nvidia-smi topo -m` matrix found: no header line beginning with GPU0");
    std::vector<Token> head = tokens_of(lines_[header]);
    std::size_t k = 0;
    for (; k < head.size(); ++k) {
      std::string_view t = head[k].text;
      if (t == "CPU" || t == "NUMA" || t == "GPU") break;
      if (columns_.size() == 1024) throw InputError(at(header, head[k].column), "more than 1024 device columns");
      if (column_index(t) != kNone)
        sink_.error(at(header, head[k].column), fmt::format("column '{}' appears twice", t));
      columns_.emplace_back(t);
      column_at_.push_back(head[k].column);
    }
    // The affinity columns, in order; only CPU and NUMA Affinity are used.
    std::string rest;
    for (std::size_t j = k; j < head.size(); ++j) rest += std::string(head[j].text) + " ";
    for (std::size_t pos = 0; pos < rest.size();) {
      bool matched = false;
      for (std::string_view name : {"CPU Affinity ", "NUMA Affinity ", "GPU NUMA ID "})
        if (!matched && rest.compare(pos, name.size(), name) == 0) {
          affinity_columns_.emplace_back(trim(name));
          pos += name.size();
          matched = true;
        }
      if (!matched) {
        pos = rest.find(' ', pos);
        pos = pos == std::string::npos ? rest.size() : pos + 1;
      }
    }
    std::size_t n = columns_.size();
    cells_.assign(n, std::vector<Cell>(n));
    has_row_.assign(n, false);
    cpu_affinity_.assign(n, "");
    numa_affinity_.assign(n, "");
    row_line_.assign(n, 0);

    std::size_t i = header + 1;
    for (; i < lines_.size(); ++i) {
      std::vector<Token> t = tokens_of(lines_[i]);
      if (t.empty() || t[0].text == "Legend:") break;
      std::uint32_t row = column_index(t[0].text);
      if (row == kNone) {
        sink_.error(at(i, t[0].column),
                    fmt::format("'{}' is not a device of the header line {}", t[0].text, header + 1));
        continue;
      }
      if (has_row_[row]) sink_.error(at(i, t[0].column), fmt::format("second row for {}", t[0].text));
      has_row_[row] = true;
      row_line_[row] = i;
      if (t.size() < n + 1) {
        sink_.error(at(i, t.back().column), fmt::format("row {} has {} cells; the header names {} devices", t[0].text,
                                                        t.size() - 1, n));
        continue;
      }
      for (std::size_t c = 0; c < n; ++c) read_cell(i, t[c + 1], row, c);
      read_affinity(i, t, row);
    }
    for (std::size_t c = 0; c < n; ++c)
      if (is_gpu(c) && !has_row_[c])
        sink_.error(at(header, column_at_[c]), fmt::format("{} has no row in the matrix", columns_[c]));
    for (; i < lines_.size(); ++i) {
      // NIC legend: "  NIC0: mlx5_0".
      std::vector<Token> t = tokens_of(lines_[i]);
      if (t.size() == 2 && t[0].text.size() > 4 && t[0].text.back() == ':' && t[0].text.substr(0, 3) == "NIC")
        legend_[std::string(t[0].text.substr(0, t[0].text.size() - 1))] = std::string(t[1].text);
    }
  }

  std::uint32_t column_index(std::string_view name) const {
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (columns_[c] == name) return static_cast<std::uint32_t>(c);
    return kNone;
  }
  bool is_gpu(std::size_t c) const {
    std::string_view s = columns_[c];
    return s.size() > 3 && s.substr(0, 3) == "GPU" &&
           std::all_of(s.begin() + 3, s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  }

  void read_cell(std::size_t line, const Token& token, std::size_t row, std::size_t column) {
    std::string_view v = token.text;
    Cell cell;
    if (v == "X") {
      cell.relation = Relation::self;
    } else if (v == "PIX") {
      cell.relation = Relation::pix;
    } else if (v == "PXB") {
      cell.relation = Relation::pxb;
    } else if (v == "PHB") {
      cell.relation = Relation::phb;
    } else if (v == "NODE") {
      cell.relation = Relation::node;
    } else if (v == "SYS" || v == "SOC") {
      cell.relation = Relation::sys;
    } else if (v.size() > 2 && v.substr(0, 2) == "NV") {
      int links = 0;
      auto [end, ec] = std::from_chars(v.data() + 2, v.data() + v.size(), links);
      if (ec != std::errc() || end != v.data() + v.size() || links < 1 || links > 1024) {
        sink_.error(at(line, token.column), fmt::format("'{}' is not NV followed by a link count", v));
        return;
      }
      cell.relation = Relation::nvlink;
      cell.links = links;
    } else {
      sink_.error(at(line, token.column),
                  fmt::format("unknown cell '{}' (expected X, NV#, PIX, PXB, PHB, NODE or SYS)", v));
      return;
    }
    if ((cell.relation == Relation::self) != (row == column)) {
      sink_.error(at(line, token.column), row == column
                                              ? fmt::format("the diagonal cell of {} must be X, not '{}'", columns_[row], v)
                                              : fmt::format("X off the diagonal ({} to {})", columns_[row], columns_[column]));
      return;
    }
    if (cell.relation == Relation::nvlink && !(is_gpu(row) && is_gpu(column))) {
      sink_.error(at(line, token.column),
                  fmt::format("NVLink between {} and {}, which are not both GPUs", columns_[row], columns_[column]));
      return;
    }
    cells_[row][column] = cell;
  }

  // nvidia-smi separates columns with tabs and pads an empty field before GPU
  // NUMA ID, and leaves CPU Affinity empty on some machines; with tabs the
  // fields after the cells are CPU Affinity, NUMA Affinity, ... in place.
  // Pasted copies with spaces lose empty fields; then they are taken in order.
  void read_affinity(std::size_t line, const std::vector<Token>& t, std::size_t row) {
    std::vector<std::string_view> rest;
    std::string_view text = lines_[line];
    std::size_t n = columns_.size();
    if (text.find('\t') != std::string_view::npos) {
      std::vector<std::string_view> fields;
      for (std::size_t start = 0;;) {
        std::size_t tab = text.find('\t', start);
        fields.push_back(trim(text.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start)));
        if (tab == std::string_view::npos) break;
        start = tab + 1;
      }
      if (!fields.empty() && fields.front().empty()) fields.erase(fields.begin());
      if (fields.size() > n + 1) rest.assign(fields.begin() + static_cast<std::ptrdiff_t>(n + 1), fields.end());
    } else {
      for (std::size_t j = n + 1; j < t.size(); ++j) rest.push_back(t[j].text);
    }
    for (std::size_t a = 0; a < affinity_columns_.size() && a < rest.size(); ++a) {
      std::string value(rest[a] == "N/A" ? "" : rest[a]);
      if (affinity_columns_[a] == "CPU Affinity") cpu_affinity_[row] = value;
      if (affinity_columns_[a] == "NUMA Affinity") numa_affinity_[row] = value;
    }
  }

  Cell relation(std::size_t a, std::size_t b) const { return has_row_[a] ? cells_[a][b] : cells_[b][a]; }

  ImportResult build() {
    std::size_t n = columns_.size();
    std::vector<ImportWarning> warnings;
    auto warn = [&](std::string message) { warnings.push_back({{source_.path, 0, 0}, std::move(message)}); };
    std::size_t asymmetric = 0;
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b)
        if (has_row_[a] && has_row_[b] && (cells_[a][b].relation != cells_[b][a].relation ||
                                           cells_[a][b].links != cells_[b][a].links))
          ++asymmetric;
    if (asymmetric > 0)
      warn(fmt::format("{} device pairs differ between their two rows; the first device's row is used", asymmetric));

    // CPUs.
    DisjointSets<> numa(n);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b) {
        Relation r = relation(a, b).relation;
        if (r == Relation::pix || r == Relation::pxb || r == Relation::phb || r == Relation::node) numa.join(a, b);
        auto key = [&](std::size_t d) { return !numa_affinity_[d].empty() ? numa_affinity_[d] : cpu_affinity_[d]; };
        if (is_gpu(a) && is_gpu(b) && !key(a).empty() && key(a) == key(b)) numa.join(a, b);
      }
    // NVLink groups and the generation guess.
    DisjointSets<> nv(n);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b)
        if (relation(a, b).relation == Relation::nvlink) nv.join(a, b);
    std::map<std::size_t, std::vector<std::size_t>> nv_groups;
    for (std::size_t d = 0; d < n; ++d)
      if (is_gpu(d)) nv_groups[nv.find(d)].push_back(d);
    std::vector<std::size_t> switched_groups;  // representatives of NVSwitch groups
    int max_links = 0;
    for (const auto& [rep, members] : nv_groups) {
      if (members.size() < 2) continue;
      int k = relation(members[0], members[1]).links;
      bool uniform = true;
      for (std::size_t x = 0; x < members.size(); ++x)
        for (std::size_t y = x + 1; y < members.size(); ++y) {
          Cell c = relation(members[x], members[y]);
          if (c.relation != Relation::nvlink || c.links != k) uniform = false;
        }
      if (uniform && static_cast<long>(k) * static_cast<long>(members.size() - 1) > 18) {
        switched_groups.push_back(rep);
        max_links = std::max(max_links, k);
      } else {
        for (std::size_t x : members) {
          int total = 0;
          for (std::size_t y : members)
            if (x != y && relation(x, y).relation == Relation::nvlink) total += relation(x, y).links;
          max_links = std::max(max_links, total);
        }
      }
    }
    int nvlink_gen = max_links >= 18 ? 4 : max_links >= 12 ? 3 : max_links > 0 ? 2 : 0;
    if (given_generation_ && max_links > 0) nvlink_gen = *given_generation_;
    // PCIe beside each NVLink generation: Gen3 (Volta), Gen4 (Ampere), Gen5
    // (Hopper, Blackwell: DGX H100 and B200, hardware.md 3); Gen4 without.
    auto pcie_beside = [](int gen) { return gen >= 4 ? "pcie5x16" : gen == 2 ? "pcie3x16" : "pcie4x16"; };
    const char* pcie = pcie_beside(given_generation_ ? *given_generation_ : nvlink_gen);
    LinkType pcie_type = *find_link_type(pcie);

    SingleNode s = single_node(name_);
    TopologyBuilder& b = s.builder;
    std::vector<DeviceId> dev(n);
    std::map<std::size_t, DeviceId> cpu_of_group;
    for (std::size_t d = 0; d < n; ++d) {
      std::size_t g = numa.find(d);
      if (!cpu_of_group.count(g)) {
        DeviceProperties p;
        cpu_of_group[g] = b.add_device(s.node, DeviceKind::cpu, fmt::format("cpu{}", cpu_of_group.size()), p);
      }
    }
    int nic_ordinal = 0;
    for (std::size_t d = 0; d < n; ++d) {
      DeviceProperties p;
      std::uint32_t origin = b.add_origin(at(has_row_[d] ? row_line_[d] : 0, 1));
      if (is_gpu(d)) {
        if (!gpu_model_.empty()) p.model = gpu_model_;
        dev[d] = b.add_device(s.node, DeviceKind::gpu, fmt::format("gpu{}", columns_[d].substr(3)), p, origin);
        continue;
      }
      std::string_view column = columns_[d];
      bool numbered = column.size() > 3 && column.substr(0, 3) == "NIC";
      std::string net = numbered ? (legend_.count(columns_[d]) ? legend_[columns_[d]] : "") : columns_[d];
      if (!net.empty()) p.labels = {{"net", net}};
      dev[d] = b.add_device(s.node, DeviceKind::nic, fmt::format("nic{}", nic_ordinal++), p, origin);
    }
    // PCIe switches, per CPU group: PIX groups, then PXB groups above them.
    DisjointSets pix(n), pxb(n);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t c = a + 1; c < n; ++c) {
        Relation r = relation(a, c).relation;
        if (r == Relation::pix) pix.join(a, c);
        if (r == Relation::pix || r == Relation::pxb) pxb.join(a, c);
      }
    std::map<std::size_t, std::vector<std::size_t>> pix_groups, pxb_groups;
    for (std::size_t d = 0; d < n; ++d) pix_groups[pix.find(d)].push_back(d);
    // Units below an upper switch: a PIX switch (by its representative) or a lone device.
    for (const auto& [rep, members] : pix_groups) pxb_groups[pxb.find(rep)].push_back(rep);
    int switches = 0;
    std::map<std::size_t, DeviceId> unit_device;  // PIX representative -> switch or device
    for (const auto& [rep, members] : pix_groups) {
      if (members.size() == 1) {
        unit_device[rep] = dev[rep];
        continue;
      }
      DeviceProperties p;
      DeviceId sw = b.add_device(s.node, DeviceKind::pcie_switch, fmt::format("psw{}", switches++), p);
      for (std::size_t m : members) b.add_link(dev[m], sw, pcie_type);
      unit_device[rep] = sw;
    }
    for (const auto& [rep, units] : pxb_groups) {
      DeviceId cpu = cpu_of_group[numa.find(rep)];
      if (units.size() == 1) {
        b.add_link(unit_device[units[0]], cpu, pcie_type);
        continue;
      }
      DeviceProperties p;
      DeviceId sw = b.add_device(s.node, DeviceKind::pcie_switch, fmt::format("psw{}", switches++), p);
      for (std::size_t u : units) b.add_link(unit_device[u], sw, pcie_type);
      b.add_link(sw, cpu, pcie_type);
    }
    // NVLink.
    if (nvlink_gen > 0) {
      LinkType nvlink = *find_link_type(fmt::format("nvlink{}", nvlink_gen));
      int nvswitches = 0;
      for (const auto& [rep, members] : nv_groups) {
        if (members.size() < 2) continue;
        if (std::find(switched_groups.begin(), switched_groups.end(), rep) != switched_groups.end()) {
          DeviceProperties p;
          DeviceId sw = b.add_device(s.node, DeviceKind::nvswitch, fmt::format("nvsw{}", nvswitches++), p);
          for (std::size_t m : members) b.add_link(dev[m], sw, nvlink, relation(members[0], members[1]).links);
          continue;
        }
        for (std::size_t x = 0; x < members.size(); ++x)
          for (std::size_t y = x + 1; y < members.size(); ++y) {
            Cell c = relation(members[x], members[y]);
            if (c.relation == Relation::nvlink) b.add_link(dev[members[x]], dev[members[y]], nvlink, c.links);
          }
      }
    }
    std::vector<DeviceId> cpus;
    for (const auto& [group, cpu] : cpu_of_group) cpus.push_back(cpu);
    std::sort(cpus.begin(), cpus.end());
    LinkType upi = *find_link_type("upi");
    for (std::size_t x = 0; x < cpus.size(); ++x)
      for (std::size_t y = x + 1; y < cpus.size(); ++y) b.add_link(cpus[x], cpus[y], upi);

    std::string inferred;
    if (given_generation_)
      inferred = nvlink_gen > 0 ? fmt::format("NVLink {} and {} from --gpu-model {}", nvlink_gen, pcie, gpu_model_)
                                : fmt::format("{} from --gpu-model {}", pcie, gpu_model_);
    else
      inferred = nvlink_gen > 0 ? fmt::format("NVLink {} and {} guessed from {} NVLinks per GPU (H100 and B200 both "
                                              "show NV18: give --gpu-model)",
                                              nvlink_gen, pcie, max_links)
                                : fmt::format("{} assumed", pcie);
    warnings.insert(warnings.begin(),
                    {{source_.path, 0, 0},
                     fmt::format("nvidia-smi topo -m is lossy: no bandwidths or models; {}; CPUs and PCIe switches "
                                 "inferred from the NUMA, PIX and PXB groups (see topoplan-formats(5))",
                                 inferred)});
    DiagnosticSink sink;
    return {b.finish(sink), std::move(warnings)};
  }

  const ImportSource& source_;
  std::string name_;
  DiagnosticSink sink_{kMaxImportErrors};
  std::vector<std::string_view> lines_;
  std::vector<std::string> columns_;
  std::vector<int> column_at_;
  std::vector<std::string> affinity_columns_;
  std::vector<std::vector<Cell>> cells_;
  std::vector<bool> has_row_;
  std::vector<std::size_t> row_line_;
  std::vector<std::string> cpu_affinity_;
  std::vector<std::string> numa_affinity_;
  std::map<std::string, std::string> legend_;
  std::string gpu_model_;                  // --gpu-model
  std::optional<int> given_generation_;    // its NVLink generation
};

}  // namespace

ImportResult import_nvidia_smi(std::span<const ImportSource> sources, const ImportOptions& options) {
  return Importer(single_source(sources, "nvidia-smi"), options).run();
}

}  // namespace topoplan::formats
