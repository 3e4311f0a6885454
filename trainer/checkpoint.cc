#include "trainer/checkpoint.h"

#include <ATen/ATen.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "graph/digest.h"
#include "graph/file_util.h"

namespace trainer {
namespace {

constexpr char kMagic[] = "planner-trainer-checkpoint 2\n";
constexpr char kMagicV1[] = "planner-trainer-checkpoint 1\n";

void PutInt(std::string* out, int64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  bool Int(int64_t* v) { return Bytes(v, 8); }
  bool Bytes(void* dst, size_t n) {
    if (n > s_.size() - at_) return false;
    std::memcpy(dst, s_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool done() const { return at_ == s_.size(); }

 private:
  const std::string& s_;
  size_t at_ = 0;
};

}  // namespace

std::string CheckpointPath(const std::string& dir, int rank) {
  return dir + "/rank-" + std::to_string(rank) + ".ckpt";
}

graph::Status WriteCheckpoint(const std::string& path, const CheckpointPosition& at,
                              const std::vector<std::pair<std::string, at::Tensor>>& state) {
  std::string out = kMagic;
  PutInt(&out, at.step);
  PutInt(&out, at.epoch);
  PutInt(&out, at.batch);
  PutInt(&out, at.world);
  PutInt(&out, static_cast<int64_t>(state.size()));
  for (const auto& [name, t] : state) {
    PutInt(&out, static_cast<int64_t>(name.size()));
    out += name;
    at::Tensor c = t.to(at::kFloat).contiguous();
    PutInt(&out, c.numel());
    out.append(reinterpret_cast<const char*>(c.data_ptr<float>()), c.numel() * sizeof(float));
  }
  out += graph::Fnv1a64Hex(out);
  // The one before stays beside it: a run stopped between two ranks' writes
  // leaves each rank one step that all of them hold (train.cc's ResumeFile).
  const std::string prev = PreviousCheckpointPath(path);
  if (std::rename(path.c_str(), prev.c_str()) != 0 && errno != ENOENT) {
    return graph::IoError(path + ": cannot keep it as " + prev + ": " + std::strerror(errno));
  }
  return graph::WriteFileAtomic(path, out);
}

std::string PreviousCheckpointPath(const std::string& path) { return path + ".prev"; }

graph::Result<CheckpointPosition> ReadCheckpoint(
    const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& state) {
  return ReadCheckpointInto(path, state, true);
}

graph::Result<CheckpointPosition> PeekCheckpoint(
    const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& state) {
  return ReadCheckpointInto(path, state, false);
}

graph::Result<CheckpointPosition> ReadCheckpointInto(
    const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& state,
    bool apply) {
  GRAPH_ASSIGN_OR_RETURN(std::string bytes, graph::ReadFile(path));
  auto bad = [&](const std::string& why) {
    return graph::InvalidArgument(path + ": not a usable checkpoint: " + why);
  };
  const size_t magic = std::strlen(kMagic);  // as long as kMagicV1
  const bool v1 = bytes.size() >= magic + 16 && bytes.compare(0, magic, kMagicV1) == 0;
  if (bytes.size() < magic + 16 || (!v1 && bytes.compare(0, magic, kMagic) != 0)) {
    return bad("it does not start with \"planner-trainer-checkpoint 2\" (or 1)");
  }
  std::string body = bytes.substr(0, bytes.size() - 16);
  if (graph::Fnv1a64Hex(body) != bytes.substr(bytes.size() - 16)) {
    return bad("its digest does not match (truncated or corrupt)");
  }
  Reader r(body);
  std::string skip(magic, '\0');
  r.Bytes(skip.data(), magic);
  CheckpointPosition at;
  int64_t count = 0;
  if (!r.Int(&at.step) || !r.Int(&at.epoch) || (!v1 && (!r.Int(&at.batch) || !r.Int(&at.world))) ||
      !r.Int(&count) || at.step < 0 || at.epoch < 0 || at.batch < 0 || at.world < 0) {
    return bad("its header is malformed");
  }
  std::map<std::string, at::Tensor> want(state.begin(), state.end());
  std::map<std::string, at::Tensor> loaded;
  for (int64_t i = 0; i < count; ++i) {
    int64_t len = 0, n = 0;
    if (!r.Int(&len) || len < 0 || len > (1 << 20)) return bad("tensor " + std::to_string(i));
    std::string name(static_cast<size_t>(len), '\0');
    if (!r.Bytes(name.data(), name.size()) || !r.Int(&n)) return bad("tensor " + std::to_string(i));
    auto it = want.find(name);
    if (it == want.end()) return bad("it holds '" + name + "', which this model has not");
    if (n != it->second.numel()) {
      return bad("'" + name + "' has " + std::to_string(n) + " elements, the model " +
                 std::to_string(it->second.numel()));
    }
    at::Tensor t = at::empty({n}, at::kFloat);
    if (!r.Bytes(t.data_ptr<float>(), n * sizeof(float))) return bad("'" + name + "' is cut short");
    loaded[name] = t;
  }
  if (!r.done()) return bad("bytes follow the last tensor");
  for (const auto& [name, t] : state) {
    if (!loaded.count(name)) return bad("'" + name + "' is missing");
  }
  if (apply) {
    for (const auto& [name, t] : state) t.copy_(loaded[name].view(t.sizes()));
  }
  return at;
}

}  // namespace trainer
