// RocksDB's filter_bench as a peer (filter_bench_peer.h).
#include "sim/filter_bench_peer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "common/strings.h"
#include "filters/filter_spec.h"

namespace filterlab::sim {
namespace {

struct Peer {
  const char* variant;
  std::vector<std::string> args;  // what selects the filter
  const char* what;
};

const Peer kPeers[] = {
    {"fastlocal", {"-impl=1"}, "format_version 5 Bloom"},
    {"legacy", {"-impl=0"}, "legacy full filter"},
    {"ribbon", {"-impl=2"}, "Standard128Ribbon"},
    {"legacy_block", {"-use_plain_table_bloom", "-impl=0"}, "PlainTableBloomV1 without locality"},
};

// PlainTableBloomV1's probe count when filter_bench makes it.
constexpr int kPlainTableProbes = 6;

std::string KnownSpecs() {
  std::string s;
  for (const Peer& p : kPeers) s += std::string(s.empty() ? "" : ", ") + p.variant + ":bpk=B";
  return s + " with their default parameters (legacy_block at 6 probes)";
}

}  // namespace

Status FilterBenchArgs(const FilterPolicy& policy, const FilterBenchConfig& config, std::vector<std::string>* args) {
  const Peer* peer = nullptr;
  for (const Peer& p : kPeers) {
    if (policy.variant() == p.variant) peer = &p;
  }
  if (peer == nullptr) {
    return Status::InvalidArgument("filter spec '" + policy.spec() + "': RocksDB's filter_bench has no " +
                                   std::string(policy.variant()) + " filter; it measures " + KnownSpecs());
  }
  // Only RocksDB's own configuration of the filter: the spec must be what
  // its bits/key alone resolves to (Ribbon's bpk is the Bloom-equivalent
  // one the spec names, not the bits it spends).
  FilterSpec spec;
  Status s = FilterSpec::Parse(policy.spec(), &spec);
  std::string bpk;
  if (s.ok() && !spec.GetRaw("bpk", &bpk)) {
    return Status::InvalidArgument("filter spec '" + policy.spec() +
                                   "': filter_bench takes bits/key (-bits_per_key); " + "give the filter as " +
                                   peer->variant + ":bpk=B");
  }
  std::unique_ptr<FilterPolicy> plain;
  if (s.ok()) s = NewFilterPolicy(std::string(peer->variant) + ":bpk=" + bpk, &plain);
  if (!s.ok()) return s;
  if (plain->spec() != policy.spec()) {
    return Status::InvalidArgument("filter spec '" + policy.spec() + "': filter_bench's " + peer->what +
                                   " is RocksDB's configuration, '" + plain->spec() + "' at these bits/key");
  }
  if (policy.variant() == std::string_view("legacy_block") && policy.num_probes() != kPlainTableProbes) {
    return Status::InvalidArgument("filter spec '" + policy.spec() + "': filter_bench's " + peer->what +
                                   " always makes 6 probes (bpk 9 and 10 give legacy_block 6)");
  }
  *args = peer->args;
  const std::vector<std::string> common = {
      "-quick",
      "-bits_per_key=" + bpk,
      "-working_mem_size_mb=" + std::to_string(config.working_set_mb),
      "-average_keys_per_filter=" + std::to_string(config.average_keys),
      "-vary_key_count_ratio=" + FormatNumber(config.vary_ratio),
      "-key_size=" + std::to_string(config.key_size),
      // -quick asks m_queries / 7 millions of queries per mode.
      "-m_queries=" + FormatNumber(static_cast<double>(config.queries) * 7 / 1e6),
      std::string("-net_includes_hashing=") + (config.net_includes_hashing ? "true" : "false"),
      "-seed=" + std::to_string(config.seed),
  };
  args->insert(args->end(), common.begin(), common.end());
  return Status::OK();
}

Status ParseFilterBenchOutput(const std::string& text, FilterBenchOutput* out) {
  for (const char* warning : {"WARNING: Assertions are enabled", "WARNING: Optimization is disabled"}) {
    if (text.find(warning) != std::string::npos) {
      return Status::InvalidArgument(std::string("filter_bench printed '") + warning +
                                     "': not a release build, so its times are not RocksDB's; point "
                                     "--filter_bench at a release (optimized, NDEBUG) build");
    }
  }
  struct Want {
    const char* prefix;
    double* value;
  };
  double filters = -1, fp_percent = -1;
  const Want wants[] = {
      {"Build avg ns/key: ", &out->build_ns_per_key},
      {"Number of filters: ", &filters},
      {"Total size (MB): ", &out->total_mb},
      {"Bits/key stored: ", &out->bits_per_key},
      {"  Single filter net ns/op: ", &out->single_net_ns_per_op},
      {"  Random filter net ns/op: ", &out->random_net_ns_per_op},
  };
  bool found[std::size(wants)] = {};
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    for (size_t i = 0; i < std::size(wants); ++i) {
      if (line.rfind(wants[i].prefix, 0) != 0) continue;
      const std::string rest = line.substr(std::strlen(wants[i].prefix));
      char* end = nullptr;
      const double v = std::strtod(rest.c_str(), &end);
      if (end == rest.c_str()) {
        return Status::Corruption("filter_bench line '" + line + "': no number after '" + wants[i].prefix + "'");
      }
      *wants[i].value = v;
      found[i] = true;
    }
    constexpr const char* kFp = "    Average FP rate %: ";
    if (line.rfind(kFp, 0) == 0) fp_percent = std::strtod(line.c_str() + std::strlen(kFp), nullptr);
  }
  for (size_t i = 0; i < std::size(wants); ++i) {
    if (!found[i]) {
      return Status::Corruption(std::string("filter_bench printed no '") + wants[i].prefix +
                                "...' line (a -quick run prints build, single and random figures)");
    }
  }
  out->filters = static_cast<uint64_t>(filters);
  out->fp = fp_percent >= 0 ? fp_percent / 100 : -1;
  return Status::OK();
}

std::string FilterBenchVersion(const std::string& binary_path) {
  std::ifstream in(binary_path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto value_of = [&](const std::string& key) -> std::string {
    const size_t at = bytes.find(key);
    if (at == std::string::npos) return "";
    size_t end = at + key.size();
    while (end < bytes.size() && bytes[end] > ' ' && bytes[end] < 127) ++end;
    return bytes.substr(at + key.size(), end - at - key.size());
  };
  const std::string tag = value_of("rocksdb_build_git_tag:"), sha = value_of("rocksdb_build_git_sha:");
  if (tag.empty() && sha.empty()) return "unknown";
  if (sha.empty()) return tag;
  return (tag.empty() ? "?" : tag) + " (" + sha + ")";
}

Status RunCapturingStdout(const std::vector<std::string>& argv, std::string* out) {
  int fds[2];
  if (::pipe(fds) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status::IOError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fds[1]);
  out->clear();
  char buf[1 << 14];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::OK();
  const std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                            : "was killed by signal " + std::to_string(WTERMSIG(status));
  return Status::IOError(argv[0] + " " + how +
                         (WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (cannot execute it)" : ""));
}

}  // namespace filterlab::sim
