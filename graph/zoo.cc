#include "graph/zoo.h"

#include <algorithm>

#include "graph/model_builder.h"
#include "graph/models.h"

namespace graph {

namespace {

struct Defaults {
  int64_t batch, layers, hidden, vocab, steps;
};

// docs/zoo.md gives the source of each figure.
constexpr Defaults kRnnlm = {64, 2, 2048, 40000, 20};
constexpr Defaults kNmt = {256, 2, 1024, 40000, 50};
constexpr Defaults kNmtSmall = {64, 2, 1024, 40000, 40};

constexpr int64_t kMax = int64_t{1} << 20;

Status Check(const std::string& model, const char* what, int64_t v, int64_t max = kMax) {
  if (v < 1 || v > max) {
    return InvalidArgument(model + ": " + what + " must be in [1, " + std::to_string(max) +
                           "], got " + std::to_string(v));
  }
  return Status::Ok();
}

Result<Defaults> Resolve(const std::string& model, const Defaults& d, const ZooOptions& o) {
  Defaults r = {o.batch ? o.batch : d.batch, o.layers ? o.layers : d.layers,
                o.hidden ? o.hidden : d.hidden, o.vocab ? o.vocab : d.vocab,
                o.steps ? o.steps : d.steps};
  GRAPH_RETURN_IF_ERROR(Check(model, "batch", r.batch));
  GRAPH_RETURN_IF_ERROR(Check(model, "layers", r.layers, 64));
  GRAPH_RETURN_IF_ERROR(Check(model, "hidden", r.hidden, 1 << 16));
  GRAPH_RETURN_IF_ERROR(Check(model, "vocab", r.vocab));
  GRAPH_RETURN_IF_ERROR(Check(model, "steps", r.steps, 1024));
  return r;
}

std::string Out(const std::string& node, int i) {
  return i == 0 ? node : node + ":" + std::to_string(i);
}

// Graph-building helpers for the recurrent models.
class Rnn {
 public:
  explicit Rnn(ModelBuilder& b) : b_(b) {
    axis1_ = b_.Int32ScalarConst("axis_1", 1);
    axis0_ = b_.Int32ScalarConst("axis_0", 0);
  }

  struct State {
    std::string c, h;
  };

  // One LSTM layer's variables: kernel [in + hidden, 4 hidden], bias [4 hidden].
  struct Layer {
    std::string kernel, bias, forget_bias;
    int64_t hidden;
  };
  Layer MakeLayer(const std::string& scope, int64_t in, int64_t hidden) {
    return {b_.Variable(scope + "/kernel", {in + hidden, 4 * hidden}),
            b_.Variable(scope + "/bias", {4 * hidden}),
            b_.FloatScalarConst(scope + "/forget_bias", 1.0f), hidden};
  }

  // TF1's BasicLSTMCell: gates i, j, f, o from one MatMul of [x, h].
  State Cell(const std::string& scope, const Layer& l, const std::string& x, const State& s) {
    std::string concat = b_.Op(scope + "/concat", "ConcatV2", {x, s.h, axis1_},
                               {{"N", MakeAttr(int64_t{2})}, {"Tidx", MakeAttr(DType::kInt32)}});
    std::string mm = b_.Op(scope + "/MatMul", "MatMul", {concat, l.kernel},
                           {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
    std::string gates =
        b_.Op(scope + "/BiasAdd", "BiasAdd", {mm, l.bias}, {{"data_format", Str("NHWC")}});
    std::string split =
        b_.Op(scope + "/split", "Split", {axis1_, gates}, {{"num_split", MakeAttr(int64_t{4})}});
    std::string f = b_.Op(scope + "/add", "AddV2", {Out(split, 2), l.forget_bias}, {});
    std::string keep =
        b_.Op(scope + "/mul", "Mul", {s.c, b_.Op(scope + "/Sigmoid", "Sigmoid", {f}, {})}, {});
    std::string write = b_.Op(scope + "/mul_1", "Mul",
                              {b_.Op(scope + "/Sigmoid_1", "Sigmoid", {split}, {}),
                               b_.Op(scope + "/Tanh", "Tanh", {Out(split, 1)}, {})},
                              {});
    std::string c = b_.Op(scope + "/add_1", "AddV2", {keep, write}, {});
    std::string h = b_.Op(scope + "/mul_2", "Mul",
                          {b_.Op(scope + "/Tanh_1", "Tanh", {c}, {}),
                           b_.Op(scope + "/Sigmoid_2", "Sigmoid", {Out(split, 3)}, {})},
                          {});
    return {c, h};
  }

  // tf.zeros([batch, hidden]) as TF1 folds it: Fill of a shape with 0.
  std::string Zeros(const std::string& name, int64_t batch, int64_t hidden) {
    return b_.Op(name, "Fill",
                 {b_.Int32Const(name + "/shape", {batch, hidden}),
                  b_.FloatScalarConst(name + "/value", 0.0f)},
                 {{"index_type", MakeAttr(DType::kInt32)}});
  }

  // Embedding lookup of ids [batch, steps] unstacked over time: steps x [batch, dim].
  std::vector<std::string> Embed(const std::string& scope, const std::string& ids, int64_t vocab,
                                 int64_t dim, int64_t steps) {
    std::string table = b_.Variable(scope + "/embedding", {vocab, dim});
    std::string e = b_.Add(scope + "/embedding_lookup", "GatherV2", {table, ids, axis0_},
                           {{"Tparams", MakeAttr(DType::kFloat)},
                            {"Tindices", MakeAttr(DType::kInt32)},
                            {"Taxis", MakeAttr(DType::kInt32)},
                            {"batch_dims", MakeAttr(int64_t{0})}});
    std::string un = b_.Op(scope + "/unstack", "Unpack", {e},
                           {{"num", MakeAttr(steps)}, {"axis", MakeAttr(int64_t{1})}});
    std::vector<std::string> out;
    for (int64_t t = 0; t < steps; ++t) out.push_back(Out(un, static_cast<int>(t)));
    return out;
  }

  // Outputs of every step stacked to [batch * steps, dim], projected to the
  // vocabulary, and the mean cross-entropy against labels [batch, steps]: TF's
  // PTB language model's loss. Returns the loss node.
  std::string SequenceLoss(const std::string& scope, const std::vector<std::string>& outputs,
                           const std::string& labels, int64_t dim, int64_t vocab) {
    const int64_t steps = static_cast<int64_t>(outputs.size());
    std::vector<std::string> in = outputs;
    in.push_back(axis1_);
    std::string concat =
        b_.Op(scope + "/concat", "ConcatV2", in,
              {{"N", MakeAttr(steps)}, {"Tidx", MakeAttr(DType::kInt32)}});  // [B, T * dim]
    std::string flat = b_.Flatten(scope + "/Reshape", concat, dim);          // [B * T, dim]
    std::string w = b_.Variable(scope + "/softmax_w", {dim, vocab});
    std::string bias = b_.Variable(scope + "/softmax_b", {vocab});
    std::string logits =
        b_.Op(scope + "/MatMul", "MatMul", {flat, w},
              {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
    logits = b_.Op(scope + "/logits", "BiasAdd", {logits, bias}, {{"data_format", Str("NHWC")}});
    std::string flat_labels = b_.Add(
        scope + "/Reshape_1", "Reshape", {labels, b_.Int32Const(scope + "/Reshape_1/shape", {-1})},
        {{"T", MakeAttr(DType::kInt32)}, {"Tshape", MakeAttr(DType::kInt32)}});
    std::string xent = b_.Op(scope + "/xent", "SparseSoftmaxCrossEntropyWithLogits",
                             {logits, flat_labels}, {{"Tlabels", MakeAttr(DType::kInt32)}});
    return b_.Op("loss", "Mean", {xent, b_.Int32Const("loss/reduction_indices", {0})},
                 {{"Tidx", MakeAttr(DType::kInt32)}, {"keep_dims", MakeAttr(false)}});
  }

  const std::string& axis1() const { return axis1_; }

 private:
  ModelBuilder& b_;
  std::string axis1_, axis0_;
};

// A multi-layer LSTM language model (Zaremba et al. style, as TF's PTB example):
// embedding, `layers` LSTMs unrolled over `steps`, softmax over the vocabulary.
Result<Graph> BuildRnnlm(const ZooOptions& o) {
  GRAPH_ASSIGN_OR_RETURN(Defaults d, Resolve("rnnlm", kRnnlm, o));
  ModelBuilder b(1);
  Rnn rnn(b);
  std::string ids = b.Placeholder("input_ids", DType::kInt32, {d.batch, d.steps});
  std::string labels = b.Placeholder("labels", DType::kInt32, {d.batch, d.steps});
  std::vector<std::string> x = rnn.Embed("rnnlm", ids, d.vocab, d.hidden, d.steps);
  for (int64_t l = 0; l < d.layers; ++l) {
    const std::string scope = "rnnlm/rnn/cell_" + std::to_string(l);
    Rnn::Layer layer = rnn.MakeLayer(scope, d.hidden, d.hidden);
    std::string zeros = rnn.Zeros(scope + "/zeros", d.batch, d.hidden);
    Rnn::State s{zeros, zeros};
    for (int64_t t = 0; t < d.steps; ++t) {
      s = rnn.Cell(scope + "/t_" + std::to_string(t), layer, x[t], s);
      x[t] = s.h;
    }
  }
  rnn.SequenceLoss("rnnlm/softmax", x, labels, d.hidden, d.vocab);
  return Graph::Create(b.Release(), "rnnlm");
}

// An LSTM encoder-decoder with attention (as GNMT and TF's NMT tutorial build
// it): `layers` encoder LSTMs over the source, `layers` decoder LSTMs over the
// target (teacher forcing), Bahdanau attention of the top decoder layer over the
// top encoder outputs at every target step, softmax over the target vocabulary.
// The score is TF's Bahdanau score (Sum of v * Tanh(keys + query)); the context
// is TF's batched matmul of the alignments with the memory.
Result<Graph> BuildNmt(const ZooOptions& o) {
  if (o.sizes != "paper-scale" && o.sizes != "small") {
    return InvalidArgument("nmt: sizes must be paper-scale or small, got '" + o.sizes + "'");
  }
  GRAPH_ASSIGN_OR_RETURN(Defaults d, Resolve("nmt", o.sizes == "small" ? kNmtSmall : kNmt, o));
  ModelBuilder b(1);
  Rnn rnn(b);
  const int64_t H = d.hidden;
  std::string src = b.Placeholder("source_ids", DType::kInt32, {d.batch, d.steps});
  std::string tgt = b.Placeholder("target_ids", DType::kInt32, {d.batch, d.steps});
  std::string labels = b.Placeholder("labels", DType::kInt32, {d.batch, d.steps});

  // Encoder.
  std::vector<std::string> x = rnn.Embed("encoder", src, d.vocab, H, d.steps);
  std::vector<Rnn::State> final_states;
  for (int64_t l = 0; l < d.layers; ++l) {
    const std::string scope = "encoder/cell_" + std::to_string(l);
    Rnn::Layer layer = rnn.MakeLayer(scope, H, H);
    std::string zeros = rnn.Zeros(scope + "/zeros", d.batch, H);
    Rnn::State s{zeros, zeros};
    for (int64_t t = 0; t < d.steps; ++t) {
      s = rnn.Cell(scope + "/t_" + std::to_string(t), layer, x[t], s);
      x[t] = s.h;
    }
    final_states.push_back(s);
  }
  // Memory [batch, steps, H] and its keys (memory_layer).
  std::string memory = b.Op("attention/memory", "Pack", x,
                            {{"N", MakeAttr(d.steps)}, {"axis", MakeAttr(int64_t{1})}});
  std::string keys = b.Flatten("attention/memory_flat", memory, H);
  keys = b.Op("attention/keys_flat", "MatMul", {keys, b.Variable("attention/memory_layer", {H, H})},
              {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
  keys = b.Add("attention/keys", "Reshape",
               {keys, b.Int32Const("attention/keys/shape", {d.batch, d.steps, H})},
               {{"T", MakeAttr(DType::kFloat)}, {"Tshape", MakeAttr(DType::kInt32)}});
  std::string query_w = b.Variable("attention/query_layer", {H, H});
  std::string v = b.Variable("attention/v", {H});
  std::string wc = b.Variable("attention/output_layer", {2 * H, H});

  // Decoder, initialised with the encoder's final states.
  std::vector<std::string> y = rnn.Embed("decoder", tgt, d.vocab, H, d.steps);
  std::vector<Rnn::Layer> layers;
  std::vector<Rnn::State> s = final_states;
  for (int64_t l = 0; l < d.layers; ++l) {
    layers.push_back(rnn.MakeLayer("decoder/cell_" + std::to_string(l), H, H));
  }
  std::vector<std::string> outputs;
  for (int64_t t = 0; t < d.steps; ++t) {
    const std::string step = "/t_" + std::to_string(t);
    std::string in = y[t];
    for (int64_t l = 0; l < d.layers; ++l) {
      s[l] = rnn.Cell("decoder/cell_" + std::to_string(l) + step, layers[l], in, s[l]);
      in = s[l].h;
    }
    const std::string a = "attention" + step;
    std::string q = b.Op(a + "/query", "MatMul", {in, query_w},
                         {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
    q = b.Op(a + "/ExpandDims", "ExpandDims", {q, rnn.axis1()},
             {{"Tdim", MakeAttr(DType::kInt32)}});
    std::string score = b.Op(a + "/Tanh", "Tanh", {b.Op(a + "/add", "AddV2", {keys, q}, {})}, {});
    score = b.Op(a + "/mul", "Mul", {v, score}, {});
    score = b.Op(a + "/score", "Sum", {score, b.Int32Const(a + "/score/axis", {2})},
                 {{"Tidx", MakeAttr(DType::kInt32)}, {"keep_dims", MakeAttr(false)}});
    std::string align = b.Op(a + "/alignments", "Softmax", {score}, {});  // [B, T]
    // TF's _compute_attention: matmul(expand_dims(alignments, 1), values), squeezed.
    std::string context = b.Op(a + "/MatMul", "BatchMatMulV2",
                               {b.Op(a + "/ExpandDims_1", "ExpandDims", {align, rnn.axis1()},
                                     {{"Tdim", MakeAttr(DType::kInt32)}}),
                                memory},
                               {{"adj_x", MakeAttr(false)}, {"adj_y", MakeAttr(false)}});
    context = b.Op(a + "/context", "Squeeze", {context}, {{"squeeze_dims", Ints({1})}});
    std::string cat = b.Op(a + "/concat", "ConcatV2", {in, context, rnn.axis1()},
                           {{"N", MakeAttr(int64_t{2})}, {"Tidx", MakeAttr(DType::kInt32)}});
    std::string att = b.Op(a + "/output", "MatMul", {cat, wc},
                           {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
    outputs.push_back(b.Op(a + "/Tanh_1", "Tanh", {att}, {}));
  }
  rnn.SequenceLoss("decoder/softmax", outputs, labels, H, d.vocab);
  return Graph::Create(b.Release(), "nmt");
}

// Convolution helpers for the CNNs: Conv2D (no bias) + FusedBatchNormV3
// (training) [+ Relu], as tf.layers / Keras write a conv-bn-relu unit.
class Cnn {
 public:
  explicit Cnn(ModelBuilder& b) : b_(b) {}

  std::string ConvBn(const std::string& scope, const std::string& x, int64_t k, int64_t in,
                     int64_t out, int64_t stride, bool relu, const char* padding = "SAME") {
    return ConvBn(scope, x, k, k, in, out, stride, relu, padding);
  }
  // A kh x kw kernel (Inception's factorised 1x7 / 7x1 and 1x3 / 3x1).
  std::string ConvBn(const std::string& scope, const std::string& x, int64_t kh, int64_t kw,
                     int64_t in, int64_t out, int64_t stride, bool relu, const char* padding) {
    std::string w = b_.Variable(scope + "/kernel", {kh, kw, in, out});
    std::string conv = b_.Op(scope + "/Conv2D", "Conv2D", {x, w},
                             {{"data_format", Str("NHWC")},
                              {"dilations", Ints({1, 1, 1, 1})},
                              {"padding", Str(padding)},
                              {"strides", Ints({1, stride, stride, 1})},
                              {"use_cudnn_on_gpu", MakeAttr(true)}});
    std::string bn =
        b_.Op(scope + "/FusedBatchNormV3", "FusedBatchNormV3",
              {conv, b_.Variable(scope + "/gamma", {out}), b_.Variable(scope + "/beta", {out}),
               b_.Variable(scope + "/moving_mean", {out}),
               b_.Variable(scope + "/moving_variance", {out})},
              {{"U", MakeAttr(DType::kFloat)},
               {"data_format", Str("NHWC")},
               {"epsilon", MakeAttr(1.001e-5f)},
               {"is_training", MakeAttr(true)}});
    return relu ? b_.Op(scope + "/Relu", "Relu", {bn}, {}) : bn;
  }

  std::string Pool(const std::string& name, const char* op, const std::string& x, int64_t k,
                   int64_t stride, const char* padding) {
    return b_.Op(name, op, {x},
                 {{"data_format", Str("NHWC")},
                  {"ksize", Ints({1, k, k, 1})},
                  {"padding", Str(padding)},
                  {"strides", Ints({1, stride, stride, 1})}});
  }

  // Global average pool, a dense layer to `classes`, and the mean cross-entropy.
  void Head(const std::string& x, int64_t channels, int64_t classes, const std::string& labels) {
    std::string pooled = b_.Op("head/avg_pool", "Mean", {x, b_.Int32Const("head/axes", {1, 2})},
                               {{"Tidx", MakeAttr(DType::kInt32)}, {"keep_dims", MakeAttr(false)}});
    std::string mm =
        b_.Op("head/MatMul", "MatMul", {pooled, b_.Variable("head/kernel", {channels, classes})},
              {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}});
    std::string logits = b_.Op("logits", "BiasAdd", {mm, b_.Variable("head/bias", {classes})},
                               {{"data_format", Str("NHWC")}});
    std::string xent = b_.Op("xent", "SparseSoftmaxCrossEntropyWithLogits", {logits, labels},
                             {{"Tlabels", MakeAttr(DType::kInt32)}});
    b_.Op("loss", "Mean", {xent, b_.Int32Const("loss/reduction_indices", {0})},
          {{"Tidx", MakeAttr(DType::kInt32)}, {"keep_dims", MakeAttr(false)}});
  }

 private:
  ModelBuilder& b_;
};

struct ImageDefaults {
  int64_t batch, side, classes;
};
constexpr ImageDefaults kResnet = {128, 224, 1000};
constexpr ImageDefaults kInception = {32, 299, 1000};

// Inception-V3 (Szegedy et al. 2016) as Keras' InceptionV3 builds it: the stem,
// three 35x35 blocks, a reduction, four 17x17 blocks with factorised 1x7/7x1
// convolutions, a reduction, two 8x8 blocks with 1x3/3x1 splits, global average
// pool and a 1000-way dense layer. Every convolution is conv-bn-relu (batch norm
// with a learned scale; Keras leaves the scale out).
Result<Graph> BuildInceptionV3(const ZooOptions& o) {
  const int64_t batch = o.batch ? o.batch : kInception.batch;
  GRAPH_RETURN_IF_ERROR(Check("inception_v3", "batch", batch));
  if (o.layers || o.hidden || o.vocab || o.steps) {
    return InvalidArgument("inception_v3: only --batch applies");
  }
  ModelBuilder b(1);
  Cnn cnn(b);
  int n = 0;  // conv-bn-relu units, named as Keras does: conv2d_<n>
  auto unit = [&](const std::string& x, int64_t in, int64_t out, int64_t kh, int64_t kw,
                  int64_t stride = 1, const char* padding = "SAME") {
    return cnn.ConvBn("conv2d_" + std::to_string(++n), x, kh, kw, in, out, stride, true, padding);
  };
  auto concat = [&](const std::string& name, const std::vector<std::string>& parts) {
    std::vector<std::string> in = parts;
    in.push_back(b.Int32ScalarConst(name + "/axis", 3));
    return b.Op(
        name, "ConcatV2", in,
        {{"N", MakeAttr(static_cast<int64_t>(parts.size()))}, {"Tidx", MakeAttr(DType::kInt32)}});
  };
  std::string x =
      b.Placeholder("images", DType::kFloat, {batch, kInception.side, kInception.side, 3});
  std::string labels = b.Placeholder("labels", DType::kInt32, {batch});
  x = unit(x, 3, 32, 3, 3, 2, "VALID");
  x = unit(x, 32, 32, 3, 3, 1, "VALID");
  x = unit(x, 32, 64, 3, 3);
  x = cnn.Pool("max_pooling2d_1", "MaxPool", x, 3, 2, "VALID");
  x = unit(x, 64, 80, 1, 1, 1, "VALID");
  x = unit(x, 80, 192, 3, 3, 1, "VALID");
  x = cnn.Pool("max_pooling2d_2", "MaxPool", x, 3, 2, "VALID");
  int64_t c = 192;
  // mixed0..2: 35 x 35.
  for (int m = 0; m < 3; ++m) {
    const std::string name = "mixed" + std::to_string(m);
    const int64_t pool_out = m == 0 ? 32 : 64;
    std::string b1 = unit(x, c, 64, 1, 1);
    std::string b5 = unit(unit(x, c, 48, 1, 1), 48, 64, 5, 5);
    std::string b3 = unit(unit(unit(x, c, 64, 1, 1), 64, 96, 3, 3), 96, 96, 3, 3);
    std::string bp =
        unit(cnn.Pool(name + "/avg_pool", "AvgPool", x, 3, 1, "SAME"), c, pool_out, 1, 1);
    x = concat(name, {b1, b5, b3, bp});
    c = 64 + 64 + 96 + pool_out;
  }
  {  // mixed3: reduction to 17 x 17.
    std::string b3 = unit(x, c, 384, 3, 3, 2, "VALID");
    std::string bd = unit(unit(unit(x, c, 64, 1, 1), 64, 96, 3, 3), 96, 96, 3, 3, 2, "VALID");
    std::string bp = cnn.Pool("mixed3/max_pool", "MaxPool", x, 3, 2, "VALID");
    x = concat("mixed3", {b3, bd, bp});
    c = 384 + 96 + c;
  }
  // mixed4..7: 17 x 17 x 768 with factorised 7x7 convolutions.
  for (int m = 4; m < 8; ++m) {
    const std::string name = "mixed" + std::to_string(m);
    const int64_t w = m == 4 ? 128 : m == 7 ? 192 : 160;
    std::string b1 = unit(x, c, 192, 1, 1);
    std::string b7 = unit(unit(unit(x, c, w, 1, 1), w, w, 1, 7), w, 192, 7, 1);
    std::string bd = unit(x, c, w, 1, 1);
    bd = unit(unit(unit(unit(bd, w, w, 7, 1), w, w, 1, 7), w, w, 7, 1), w, 192, 1, 7);
    std::string bp = unit(cnn.Pool(name + "/avg_pool", "AvgPool", x, 3, 1, "SAME"), c, 192, 1, 1);
    x = concat(name, {b1, b7, bd, bp});
    c = 768;
  }
  {  // mixed8: reduction to 8 x 8.
    std::string b3 = unit(unit(x, c, 192, 1, 1), 192, 320, 3, 3, 2, "VALID");
    std::string b7 = unit(unit(unit(x, c, 192, 1, 1), 192, 192, 1, 7), 192, 192, 7, 1);
    b7 = unit(b7, 192, 192, 3, 3, 2, "VALID");
    std::string bp = cnn.Pool("mixed8/max_pool", "MaxPool", x, 3, 2, "VALID");
    x = concat("mixed8", {b3, b7, bp});
    c = 320 + 192 + c;
  }
  // mixed9, mixed10: 8 x 8 x 2048 with 1x3 / 3x1 splits.
  for (int m = 9; m < 11; ++m) {
    const std::string name = "mixed" + std::to_string(m);
    std::string b1 = unit(x, c, 320, 1, 1);
    std::string b3 = unit(x, c, 384, 1, 1);
    b3 = concat(name + "_0", {unit(b3, 384, 384, 1, 3), unit(b3, 384, 384, 3, 1)});
    std::string bd = unit(unit(x, c, 448, 1, 1), 448, 384, 3, 3);
    bd = concat(name + "_1", {unit(bd, 384, 384, 1, 3), unit(bd, 384, 384, 3, 1)});
    std::string bp = unit(cnn.Pool(name + "/avg_pool", "AvgPool", x, 3, 1, "SAME"), c, 192, 1, 1);
    x = concat(name, {b1, b3, bd, bp});
    c = 320 + 768 + 768 + 192;
  }
  cnn.Head(x, c, kInception.classes, labels);
  return Graph::Create(b.Release(), "inception_v3");
}

// ResNet (He et al. 2016) with bottleneck blocks, v1: conv-bn-relu units, a
// projection shortcut at the first block of each stage. `layers` picks the depth
// (50, 101 or 152; the Hierarchical Planner paper uses 152).
Result<Graph> BuildResnet(const ZooOptions& o) {
  const int64_t batch = o.batch ? o.batch : kResnet.batch;
  const int64_t depth = o.layers ? o.layers : 152;
  GRAPH_RETURN_IF_ERROR(Check("resnet", "batch", batch));
  if (o.hidden || o.vocab || o.steps) {
    return InvalidArgument("resnet: only --batch and --layers (50, 101, 152) apply");
  }
  std::vector<int64_t> blocks;
  if (depth == 50) blocks = {3, 4, 6, 3};
  if (depth == 101) blocks = {3, 4, 23, 3};
  if (depth == 152) blocks = {3, 8, 36, 3};
  if (blocks.empty()) {
    return InvalidArgument("resnet: --layers must be 50, 101 or 152, got " + std::to_string(depth));
  }
  ModelBuilder b(1);
  Cnn cnn(b);
  std::string x = b.Placeholder("images", DType::kFloat, {batch, kResnet.side, kResnet.side, 3});
  std::string labels = b.Placeholder("labels", DType::kInt32, {batch});
  x = cnn.ConvBn("conv1", x, 7, 3, 64, 2, true);
  x = cnn.Pool("pool1", "MaxPool", x, 3, 2, "SAME");
  int64_t in = 64;
  for (size_t stage = 0; stage < blocks.size(); ++stage) {
    const int64_t width = 64 << stage, out = 4 * width;
    for (int64_t blk = 0; blk < blocks[stage]; ++blk) {
      const std::string scope =
          "stage" + std::to_string(stage + 2) + "/block" + std::to_string(blk + 1);
      const int64_t stride = blk == 0 && stage > 0 ? 2 : 1;
      std::string shortcut =
          blk == 0 ? cnn.ConvBn(scope + "/shortcut", x, 1, in, out, stride, false) : x;
      std::string y = cnn.ConvBn(scope + "/conv1", x, 1, in, width, stride, true);
      y = cnn.ConvBn(scope + "/conv2", y, 3, width, width, 1, true);
      y = cnn.ConvBn(scope + "/conv3", y, 1, width, out, 1, false);
      x = b.Op(scope + "/Relu", "Relu", {b.Op(scope + "/add", "AddV2", {shortcut, y}, {})}, {});
      in = out;
    }
  }
  cnn.Head(x, in, kResnet.classes, labels);
  return Graph::Create(b.Release(), "resnet");
}

}  // namespace

std::vector<std::string> ZooModels() {
  return {"inception_v3", "resnet", "rnnlm", "nmt", "mlp", "lenet", "two_branch", "chain"};
}

Result<Graph> BuildZooModel(const std::string& name, const ZooOptions& o) {
  if (name == "rnnlm") return BuildRnnlm(o);
  if (name == "nmt") return BuildNmt(o);
  if (name == "resnet") return BuildResnet(o);
  if (name == "inception_v3") return BuildInceptionV3(o);
  if (o.layers || o.hidden || o.vocab || o.steps) {
    if (name == "mlp" || name == "lenet" || name == "two_branch" || name == "chain") {
      return InvalidArgument(name + ": only --batch applies to the small models");
    }
  }
  const int64_t batch = o.batch ? o.batch : 64;
  if (name == "mlp") return BuildMlp({batch, {256, 256}, 1});
  if (name == "lenet") return BuildLeNet({batch, 1});
  if (name == "two_branch") return BuildTwoBranch({batch, {512, 512}, 1});
  if (name == "chain") return BuildChain({batch, 1280, 8, 1});
  std::string known;
  for (const std::string& m : ZooModels()) known += (known.empty() ? "" : ", ") + m;
  return InvalidArgument("unknown zoo model '" + name + "' (known: " + known + ")");
}

}  // namespace graph
