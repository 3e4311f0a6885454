#include "graph/models.h"

#include <string>
#include <utility>

#include "graph/model_builder.h"

namespace graph {

namespace {

using Builder = ModelBuilder;

// Bounds batch and layer sizes so that element counts cannot overflow int64.
constexpr int64_t kMaxSize = int64_t{1} << 20;

Status CheckSizes(const std::string& model, int64_t batch, const std::vector<int64_t>& hidden) {
  const std::string range = " must be in [1, " + std::to_string(kMaxSize) + "], got ";
  if (batch < 1 || batch > kMaxSize) {
    return InvalidArgument(model + ": batch" + range + std::to_string(batch));
  }
  for (int64_t h : hidden) {
    if (h < 1 || h > kMaxSize)
      return InvalidArgument(model + ": hidden layer size" + range + std::to_string(h));
  }
  return Status::Ok();
}

// The two inputs every model has.
std::pair<std::string, std::string> Inputs(Builder& b, int64_t batch) {
  return {b.Placeholder("images", DType::kFloat, {batch, kSide, kSide, 1}),
          b.Placeholder("labels", DType::kInt32, {batch})};
}

}  // namespace

Result<Graph> BuildMlp(const MlpOptions& opts) {
  GRAPH_RETURN_IF_ERROR(CheckSizes("mlp", opts.batch, opts.hidden));
  Builder b(opts.seed);
  auto [images, labels] = Inputs(b, opts.batch);
  std::string logits = b.MlpTower("", images, opts.hidden);
  return b.FinishWithLoss(logits, labels, "mlp");
}

Result<Graph> BuildLeNet(const LeNetOptions& opts) {
  GRAPH_RETURN_IF_ERROR(CheckSizes("lenet", opts.batch, {}));
  Builder b(opts.seed);
  auto [images, labels] = Inputs(b, opts.batch);
  std::string x = b.Conv("conv1", images, 5, 1, 6, "SAME");  // [B,28,28,6]
  x = b.MaxPool("pool1", x);                                 // [B,14,14,6]
  x = b.Conv("conv2", x, 5, 6, 16, "VALID");                 // [B,10,10,16]
  x = b.MaxPool("pool2", x);                                 // [B,5,5,16]
  x = b.Flatten("flatten", x, 400);
  x = b.Dense("fc1", x, 400, 120, true);
  x = b.Dense("fc2", x, 120, 84, true);
  std::string logits = b.Dense("logits", x, 84, kClasses, false);
  return b.FinishWithLoss(logits, labels, "lenet");
}

Result<Graph> BuildTwoBranch(const TwoBranchOptions& opts) {
  GRAPH_RETURN_IF_ERROR(CheckSizes("two_branch", opts.batch, opts.hidden));
  Builder b(opts.seed);
  auto [images, labels] = Inputs(b, opts.batch);
  std::string a = b.MlpTower("a/", images, opts.hidden);
  std::string c = b.MlpTower("b/", images, opts.hidden);
  std::string logits = b.Op("logits", "AddV2", {a, c}, {});
  return b.FinishWithLoss(logits, labels, "two_branch");
}

}  // namespace graph
