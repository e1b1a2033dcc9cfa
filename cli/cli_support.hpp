// What every command needs from the shell: reading inputs, writing outputs
// without leaving half-written files, and the --format option.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "topoplan/model/topology.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::cli {

enum class Format { text, json };

/// Adds `--format text|json` to a command.
void add_format_option(CLI::App& command, Format& format);

/// Warnings on standard error, `topoplan: warning: FILE:LINE:COL: message`
/// (write_diagnostics in support/error.hpp, the one printer).
void print_warnings(const std::vector<Diagnostic>& warnings);

/// The largest input topoplan reads, file or pipe: far above any real
/// topology, manifest or node list (`kubectl get nodes -o json` of a
/// 5,000-node cluster is some 100 MB), and low enough that parsing it fits in
/// memory. topoplan(1), FILES.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

/// The contents of `path`; nullopt when it does not exist; throws InputError
/// when it exists but cannot be read: a directory, no permission, something
/// that is neither a regular file nor a pipe (/dev/zero, a terminal, a
/// socket), or more than kMaxInputBytes.
std::optional<std::string> read_file(const std::string& path);

/// Like read_file, but a missing file is an error too; `-` reads stdin
/// (whatever it is, up to kMaxInputBytes).
std::string read_input(const std::string& path);

/// Throws InputError when `path` (an -o argument) is an existing directory,
/// before anything is computed or its extension is looked at.
void refuse_directory(const std::string& path);

/// Loads a TOPO argument (topoplan::load_topology_argument: a built-in, a
/// topology file, a Kubernetes or openb node list) from the file system,
/// with `level_labels` as a node list's --levels; warnings go to stderr.
Topology load_topology_argument(const std::string& argument, const std::vector<std::string>& level_labels = {});

/// Writes `content` to `path` through a temporary file in the same directory
/// and a rename, so a failure never leaves a half-written file behind. The
/// file keeps its permissions, a symbolic link keeps its target (which is
/// replaced), and a device or pipe (/dev/null, /dev/stdout) is written into.
void write_file_atomically(const std::string& path, const std::string& content);

/// Writes `content` to stdout when `path` is empty or `-`, else atomically
/// to the file (the -o convention of every command that writes one result).
void write_output(const std::string& path, const std::string& content);

}  // namespace topoplan::cli
