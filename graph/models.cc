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

Result<Graph> BuildChain(const ChainOptions& opts) {
  GRAPH_RETURN_IF_ERROR(CheckSizes("chain", opts.batch, {opts.width}));
  if (opts.width % kClasses != 0) {
    return InvalidArgument("chain: width must be a multiple of " + std::to_string(kClasses) +
                           ", got " + std::to_string(opts.width));
  }
  if (opts.tanh_layers < 0 || opts.tanh_layers > 1024) {
    return InvalidArgument("chain: tanh layers must be in [0, 1024], got " +
                           std::to_string(opts.tanh_layers));
  }
  Builder b(opts.seed);
  auto [images, labels] = Inputs(b, opts.batch);
  std::string x = b.Flatten("flatten", images, kPixels);
  std::string w = b.FloatConst("dense/kernel", {kPixels, opts.width}, kPixels, opts.width);
  x = b.Op("dense/MatMul", "MatMul", {x, w},
           {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
  for (int i = 0; i < opts.tanh_layers; ++i) {
    x = b.Op("tanh_" + std::to_string(i), "Tanh", {x}, {});
  }
  std::string groups = b.Int32Const("groups/shape", {-1, kClasses, opts.width / kClasses});
  x = b.Op("groups", "Reshape", {x, groups}, {{"Tshape", MakeAttr(DType::kInt32)}});
  std::string axis = b.Int32Const("logits/reduction_indices", {2});
  std::string logits = b.Op("logits", "Sum", {x, axis},
                            {{"Tidx", MakeAttr(DType::kInt32)}, {"keep_dims", MakeAttr(false)}});
  return b.FinishWithLoss(logits, labels, "chain");
}

}  // namespace graph
