// Internal to graph/: appends the nodes of a model written in code the way
// TensorFlow writes them (op names, attributes, NHWC), for models.cc and zoo.cc.
// Not thread-safe; one builder per model.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace graph {

// The small models' images and classes (Fashion-MNIST).
constexpr int64_t kSide = 28;
constexpr int64_t kPixels = kSide * kSide;
constexpr int64_t kClasses = 10;

inline AttrValue Ints(std::vector<int64_t> v) {
  AttrList l;
  l.i = std::move(v);
  return MakeAttr(std::move(l));
}

inline AttrValue Str(const char* s) { return MakeAttr(std::string(s)); }

// Appends NodeSpecs in topological order and draws weights from one generator, so
// the weights depend only on the seed and the order the layers are added.
class ModelBuilder {
 public:
  explicit ModelBuilder(uint32_t seed) : rng_(seed) {}

  std::string Add(std::string name, const char* op, std::vector<std::string> inputs,
                  AttrMap attrs) {
    specs_.push_back({name, op, std::move(inputs), "", std::move(attrs)});
    return name;
  }

  // Everything past the inputs and weights computes in float32, hence T = DT_FLOAT.
  std::string Op(std::string name, const char* op, std::vector<std::string> inputs, AttrMap attrs) {
    attrs.emplace("T", MakeAttr(DType::kFloat));
    return Add(std::move(name), op, std::move(inputs), std::move(attrs));
  }

  std::string Placeholder(const std::string& name, DType t, std::vector<int64_t> dims) {
    return Add(name, "Placeholder", {},
               {{"dtype", MakeAttr(t)}, {"shape", MakeAttr(Shape(std::move(dims)))}});
  }

  std::string Int32Const(const std::string& name, const std::vector<int64_t>& values) {
    Shape s({static_cast<int64_t>(values.size())});
    return Add(name, "Const", {},
               {{"dtype", MakeAttr(DType::kInt32)},
                {"value", MakeAttr(Tensor::FromInt64s(DType::kInt32, s, values))}});
  }

  std::string Int32ScalarConst(const std::string& name, int64_t value) {
    return Add(name, "Const", {},
               {{"dtype", MakeAttr(DType::kInt32)},
                {"value", MakeAttr(Tensor::FromInt64s(DType::kInt32, Shape::Scalar(), {value}))}});
  }

  std::string FloatScalarConst(const std::string& name, float value) {
    std::string bytes(sizeof(float), '\0');
    std::memcpy(bytes.data(), &value, sizeof(float));
    return Add(name, "Const", {},
               {{"dtype", MakeAttr(DType::kFloat)},
                {"value", MakeAttr(Tensor(DType::kFloat, Shape::Scalar(), bytes))}});
  }

  // Glorot-uniform (Keras' default kernel initializer) when fan_in > 0, else zeros.
  std::string FloatConst(const std::string& name, std::vector<int64_t> dims, int64_t fan_in,
                         int64_t fan_out) {
    Shape shape(std::move(dims));
    std::vector<float> v(static_cast<size_t>(shape.NumElements()), 0.0f);
    if (fan_in > 0) {
      float limit = std::sqrt(6.0f / static_cast<float>(fan_in + fan_out));
      std::uniform_real_distribution<float> u(-limit, limit);
      for (float& x : v) x = u(rng_);
    }
    // Tensor bytes are little-endian; so is every host this project targets.
    std::string bytes(v.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return Add(name, "Const", {},
               {{"dtype", MakeAttr(DType::kFloat)},
                {"value", MakeAttr(Tensor(DType::kFloat, shape, bytes))}});
  }

  // tf.reshape(x, [-1, n]).
  std::string Flatten(const std::string& name, const std::string& x, int64_t n) {
    std::string shape = Int32Const(name + "/shape", {-1, n});
    return Op(name, "Reshape", {x, shape}, {{"Tshape", MakeAttr(DType::kInt32)}});
  }

  std::string BiasAdd(const std::string& name, const std::string& x, const std::string& scope,
                      int64_t n) {
    std::string b = FloatConst(scope + "/bias", {n}, 0, 0);
    return Op(name, "BiasAdd", {x, b}, {{"data_format", Str("NHWC")}});
  }

  std::string Relu(const std::string& scope, const std::string& x) {
    return Op(scope + "/Relu", "Relu", {x}, {});
  }

  // A Keras Dense layer: MatMul + BiasAdd, then Relu if `relu`. Without Relu the
  // BiasAdd is named `scope` itself, so output layers are "logits".
  std::string Dense(const std::string& scope, const std::string& x, int64_t in, int64_t out,
                    bool relu) {
    std::string w = FloatConst(scope + "/kernel", {in, out}, in, out);
    std::string mm = Op(scope + "/MatMul", "MatMul", {x, w},
                        {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
    std::string y = BiasAdd(relu ? scope + "/BiasAdd" : scope, mm, scope, out);
    return relu ? Relu(scope, y) : y;
  }

  // Conv2D (stride 1, HWIO kernel) + BiasAdd + Relu.
  std::string Conv(const std::string& scope, const std::string& x, int64_t k, int64_t in,
                   int64_t out, const char* padding) {
    std::string w = FloatConst(scope + "/kernel", {k, k, in, out}, k * k * in, k * k * out);
    std::string c = Op(scope + "/Conv2D", "Conv2D", {x, w},
                       {{"data_format", Str("NHWC")},
                        {"dilations", Ints({1, 1, 1, 1})},
                        {"explicit_paddings", Ints({})},
                        {"padding", Str(padding)},
                        {"strides", Ints({1, 1, 1, 1})},
                        {"use_cudnn_on_gpu", MakeAttr(true)}});
    return Relu(scope, BiasAdd(scope + "/BiasAdd", c, scope, out));
  }

  // 2x2 window, stride 2.
  std::string MaxPool(const std::string& name, const std::string& x) {
    return Op(name, "MaxPool", {x},
              {{"data_format", Str("NHWC")},
               {"explicit_paddings", Ints({})},
               {"ksize", Ints({1, 2, 2, 1})},
               {"padding", Str("VALID")},
               {"strides", Ints({1, 2, 2, 1})}});
  }

  // Each tower flattens the images itself so that two towers share no node.
  std::string MlpTower(const std::string& scope, const std::string& images,
                       const std::vector<int64_t>& hidden) {
    std::string x = Flatten(scope + "flatten", images, kPixels);
    int64_t width = kPixels;
    for (size_t i = 0; i < hidden.size(); ++i) {
      x = Dense(scope + "hidden_" + std::to_string(i), x, width, hidden[i], true);
      width = hidden[i];
    }
    return Dense(scope + "logits", x, width, kClasses, false);
  }

  // loss = mean over the batch of the per-example cross-entropy (output 0).
  Result<Graph> FinishWithLoss(const std::string& logits, const std::string& labels,
                               const std::string& source) {
    std::string xent = Op("xent", "SparseSoftmaxCrossEntropyWithLogits", {logits, labels},
                          {{"Tlabels", MakeAttr(DType::kInt32)}});
    std::string axis = Int32Const("loss/reduction_indices", {0});
    Op("loss", "Mean", {xent, axis},
       {{"Tidx", MakeAttr(DType::kInt32)}, {"keep_dims", MakeAttr(false)}});
    return Graph::Create(std::move(specs_), source);
  }

  // A TF1 variable: VariableV2 (no value in the file; the executor starts it at
  // zero) read through Identity "<name>/read", as tf.Variable writes it.
  std::string Variable(const std::string& name, std::vector<int64_t> dims) {
    Add(name, "VariableV2", {},
        {{"dtype", MakeAttr(DType::kFloat)},
         {"shape", MakeAttr(Shape(std::move(dims)))},
         {"container", MakeAttr(std::string())},
         {"shared_name", MakeAttr(std::string())}});
    return Op(name + "/read", "Identity", {name}, {});
  }

  std::vector<NodeSpec> Release() { return std::move(specs_); }

 private:
  std::vector<NodeSpec> specs_;
  std::mt19937 rng_;
};

}  // namespace graph
