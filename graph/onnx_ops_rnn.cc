// ONNX rules, recurrent family: LSTM, GRU and RNN (what nn.LSTM, nn.GRU and
// nn.RNN export), unrolled over a static sequence length into the IR's
// MatMul, Split, Sigmoid, Tanh and elementwise ops, so that the training graph
// differentiates them by its existing rules and the placer sees every step.
// The input projection of all steps is one MatMul per direction; each step
// adds its recurrent MatMul. Layout 0 (sequence first), default activations,
// no clip, no peepholes, no input_forget; sequence_lens only when constant
// and equal to the sequence length.
#include <cstring>

#include "graph/onnx_translate.h"

namespace graph::onnx_import {
namespace {

enum class Cell { kLstm, kGru, kRnn };

int GateCount(Cell cell) { return cell == Cell::kLstm ? 4 : cell == Cell::kGru ? 3 : 1; }

struct Recurrence {
  Cell cell;
  int64_t steps = 0, batch = 0, hidden = 0;
  int directions = 1;
  bool reverse_only = false;
  bool linear_before_reset = false;  // GRU
};

Status CheckSupported(NodeContext& c, Cell cell, Recurrence* r) {
  if (c.attr_int("layout", 0) != 0) return c.Unsupported("layout = 1 (batch first)");
  if (c.attr("clip")) return c.Unsupported("the clip attribute");
  if (c.attr_int("input_forget", 0) != 0) return c.Unsupported("input_forget = 1");
  if (auto acts = c.attr("activations")) {
    const std::vector<std::string> lstm = {"Sigmoid", "Tanh", "Tanh"};
    const std::vector<std::string> gru = {"Sigmoid", "Tanh"};
    const std::vector<std::string> rnn = {"Tanh"};
    const auto& want = cell == Cell::kLstm ? lstm : cell == Cell::kGru ? gru : rnn;
    for (int i = 0; i < acts->strings_size(); ++i) {
      if (acts->strings(i) != want[i % want.size()]) {
        return c.Unsupported("activation '" + acts->strings(i) + "'");
      }
    }
  }
  if (cell == Cell::kLstm && c.has(7)) return c.Unsupported("peephole weights (P)");
  const std::string direction = c.attr_string("direction", "forward");
  if (direction == "bidirectional") {
    r->directions = 2;
  } else if (direction == "reverse") {
    r->reverse_only = true;
  } else if (direction != "forward") {
    return c.Error("unknown direction '" + direction + "'");
  }
  Shape x = c.shape(0);
  if (!x.known_rank() || x.rank() != 3 || !x.FullyDefined()) {
    return c.Unsupported(
        "unrolling needs a static [sequence, batch, input] shape, got " + x.ToString() +
        " (give the model's inputs their sizes with --input-shape NAME=D0,D1,...)");
  }
  r->cell = cell;
  r->steps = x.dim(0);
  r->batch = x.dim(1);
  r->hidden = c.attr_int("hidden_size", 0);
  if (r->hidden <= 0) return c.Error("hidden_size is required");
  // A GRU's bias mask is made here, hidden_size floats a gate.
  if (r->hidden > kMaxHiddenSize) {
    return c.Unsupported("hidden_size " + std::to_string(r->hidden) + " (at most " +
                         std::to_string(kMaxHiddenSize) + ")");
  }
  // Each step becomes about 15 IR nodes: bound what a file can ask for, a
  // node and the whole model (many small recurrent nodes sharing one input).
  if (r->steps < 1 || r->steps > 10000) {
    return c.Unsupported("unrolling " + std::to_string(r->steps) + " steps (at most 10000)");
  }
  if (!c.ChargeUnrolledSteps(r->steps * r->directions)) {
    return c.Unsupported("unrolling more than " + std::to_string(kMaxUnrolledSteps) +
                         " steps in the whole model");
  }
  Shape w = c.shape(2);
  const int64_t g = GateCount(cell) * r->hidden;
  if (!w.known_rank() || w.rank() != 3 || w.dim(0) != r->directions || w.dim(1) != g ||
      w.dim(2) != r->hidden) {
    return c.Error("R's shape " + w.ToString() + " does not match hidden_size " +
                   std::to_string(r->hidden) + " and the direction");
  }
  if (c.has(4)) {
    const Tensor* lens = c.value(4);
    if (lens == nullptr) return c.Unsupported("computed sequence_lens");
    for (int64_t l : lens->ToInt64s()) {
      if (l != r->steps) return c.Unsupported("sequence_lens shorter than the sequence");
    }
  }
  r->linear_before_reset = c.attr_int("linear_before_reset", 0) != 0;
  return Status::Ok();
}

// Per-direction weights: W [G*h, in] and R [G*h, h], and the biases.
struct DirectionWeights {
  std::string w, r, bias;    // bias: Wb + Rb, or Wb alone for a GRU's candidate
  std::string rb_candidate;  // GRU with linear_before_reset: Rb of the candidate gate
  std::string r_zr, r_h;     // GRU: R's rows for z and r, and for the candidate
};

DirectionWeights Weights(NodeContext& c, const Recurrence& rec, int d, const std::string& p) {
  DirectionWeights dw;
  std::string index = c.IntScalar(p + "index", d);
  std::string axis0 = c.IntScalar(p + "axis0", 0);
  dw.w =
      c.Emit(p + "W", "GatherV2", {c.in(1), index, axis0}, {{"batch_dims", MakeAttr(int64_t{0})}});
  dw.r =
      c.Emit(p + "R", "GatherV2", {c.in(2), index, axis0}, {{"batch_dims", MakeAttr(int64_t{0})}});
  if (rec.cell == Cell::kGru) {
    std::string sizes = c.IntConst(p + "R_sizes", {2 * rec.hidden, rec.hidden}, DType::kInt64);
    std::string rs = c.Emit(p + "R_split", "SplitV", {dw.r, sizes, axis0},
                            {{"num_split", MakeAttr(int64_t{2})}});
    dw.r_zr = rs;
    dw.r_h = rs + ":1";
  }
  if (!c.has(3)) return dw;
  const int64_t g = GateCount(rec.cell) * rec.hidden;
  std::string b =
      c.Emit(p + "B", "GatherV2", {c.in(3), index, axis0}, {{"batch_dims", MakeAttr(int64_t{0})}});
  std::string halves =
      c.Emit(p + "B_halves", "Split", {axis0, b}, {{"num_split", MakeAttr(int64_t{2})}});
  std::string wb = halves, rb = halves + ":1";
  if (rec.cell == Cell::kGru && rec.linear_before_reset) {
    // The candidate's recurrent bias is added inside r * (...), so kept apart.
    std::string mask = c.Constant(p + "zr_mask", [&] {
      std::vector<float> m(static_cast<size_t>(g), 1.0f);
      for (int64_t i = 2 * rec.hidden; i < g; ++i) m[i] = 0.0f;
      std::string bytes(m.size() * 4, '\0');
      std::memcpy(bytes.data(), m.data(), bytes.size());
      return Tensor(DType::kFloat, Shape({g}), bytes);
    }());
    std::string zr = c.Emit(p + "Rb_zr", "Mul", {rb, mask});
    dw.bias = c.Emit(p + "bias", "AddV2", {wb, zr});
    std::string parts =
        c.Emit(p + "Rb_parts", "SplitV",
               {rb, c.IntConst(p + "Rb_sizes", {2 * rec.hidden, rec.hidden}, DType::kInt64), axis0},
               {{"num_split", MakeAttr(int64_t{2})}});
    dw.rb_candidate = parts + ":1";
    return dw;
  }
  dw.bias = c.Emit(p + "bias", "AddV2", {wb, rb});
  return dw;
}

// One step of the cell: returns the new h (and c for an LSTM through *cell_state).
std::string Step(NodeContext& c, const Recurrence& rec, const DirectionWeights& dw,
                 const std::string& xw, const std::string& h, std::string* cell_state,
                 const std::string& p) {
  AttrMap tb = {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(true)}};
  std::string one = c.IntScalar(p + "axis1", 1);
  if (rec.cell == Cell::kRnn) {
    std::string hr = c.Emit(p + "HR", "MatMul", {h, dw.r}, tb);
    return c.Emit(p + "h", "Tanh", {c.Emit(p + "pre", "AddV2", {xw, hr})});
  }
  if (rec.cell == Cell::kLstm) {
    std::string hr = c.Emit(p + "HR", "MatMul", {h, dw.r}, tb);
    std::string gates = c.Emit(p + "gates", "AddV2", {xw, hr});
    std::string g =
        c.Emit(p + "split", "Split", {one, gates}, {{"num_split", MakeAttr(int64_t{4})}});
    std::string i = c.Emit(p + "i", "Sigmoid", {g});
    std::string o = c.Emit(p + "o", "Sigmoid", {g + ":1"});
    std::string f = c.Emit(p + "f", "Sigmoid", {g + ":2"});
    std::string cand = c.Emit(p + "candidate", "Tanh", {g + ":3"});
    std::string kept = c.Emit(p + "kept", "Mul", {f, *cell_state});
    std::string added = c.Emit(p + "added", "Mul", {i, cand});
    *cell_state = c.Emit(p + "c", "AddV2", {kept, added});
    return c.Emit(p + "h", "Mul", {o, c.Emit(p + "c_tanh", "Tanh", {*cell_state})});
  }
  // GRU: z, r from x and h; the candidate from x and r-gated h.
  std::string xs = c.Emit(p + "x_split", "Split", {one, xw}, {{"num_split", MakeAttr(int64_t{3})}});
  std::string hzr = c.Emit(p + "HR_zr", "MatMul", {h, dw.r_zr}, tb);
  std::string zr =
      c.Emit(p + "zr_split", "Split", {one, hzr}, {{"num_split", MakeAttr(int64_t{2})}});
  std::string z = c.Emit(p + "z", "Sigmoid", {c.Emit(p + "z_pre", "AddV2", {xs, zr})});
  std::string r =
      c.Emit(p + "r", "Sigmoid", {c.Emit(p + "r_pre", "AddV2", {xs + ":1", zr + ":1"})});
  std::string hh;
  if (rec.linear_before_reset) {
    std::string hrh = c.Emit(p + "HR_h", "MatMul", {h, dw.r_h}, tb);
    if (!dw.rb_candidate.empty()) hrh = c.Emit(p + "HR_h_bias", "AddV2", {hrh, dw.rb_candidate});
    hh = c.Emit(p + "gated", "Mul", {r, hrh});
  } else {
    hh = c.Emit(p + "HR_h", "MatMul", {c.Emit(p + "rh", "Mul", {r, h}), dw.r_h}, tb);
  }
  std::string cand =
      c.Emit(p + "candidate", "Tanh", {c.Emit(p + "cand_pre", "AddV2", {xs + ":2", hh})});
  // h' = (1 - z) * candidate + z * h = candidate + z * (h - candidate)
  std::string diff = c.Emit(p + "diff", "Sub", {h, cand});
  return c.Emit(p + "h", "AddV2", {cand, c.Emit(p + "z_diff", "Mul", {z, diff})});
}

// The initial state of direction d: the given one, or zeros.
std::string Initial(NodeContext& c, const Recurrence& rec, int input, int d, const std::string& p) {
  if (c.has(input)) {
    return c.Emit(p, "GatherV2",
                  {c.in(input), c.IntScalar(p + "_index", d), c.IntScalar(p + "_axis", 0)},
                  {{"batch_dims", MakeAttr(int64_t{0})}});
  }
  std::string zero = c.ScalarConst(p + "_zero", 0, c.dtype(0));
  return c.Emit(p, "Fill", {c.IntConst(p + "_shape", {rec.batch, rec.hidden}), zero});
}

Status Recurrent(NodeContext& c, Cell cell) {
  Recurrence rec;
  GRAPH_RETURN_IF_ERROR(CheckSupported(c, cell, &rec));
  const int64_t g = GateCount(cell) * rec.hidden;
  const int64_t in = c.shape(0).dim(2);
  AttrMap tb = {{"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(true)}};
  std::string x2 = c.Emit("x_rows", "Reshape",
                          {c.in(0), c.IntConst("x_rows_shape", {rec.steps * rec.batch, in})});
  std::vector<std::string> y_dirs, h_last, c_last;
  for (int d = 0; d < rec.directions; ++d) {
    const std::string p = "d" + std::to_string(d) + "/";
    DirectionWeights dw = Weights(c, rec, d, p);
    std::string xw = c.Emit(p + "XW", "MatMul", {x2, dw.w}, tb);
    if (!dw.bias.empty()) xw = c.Emit(p + "XW_bias", "AddV2", {xw, dw.bias});
    xw = c.Emit(p + "XW_steps", "Reshape",
                {xw, c.IntConst(p + "XW_shape", {rec.steps, rec.batch, g})});
    std::string xs = c.Emit(p + "XW_unpack", "Unpack", {xw},
                            {{"num", MakeAttr(rec.steps)}, {"axis", MakeAttr(int64_t{0})}});
    std::string h = Initial(c, rec, 5, d, p + "h0");
    std::string cs = cell == Cell::kLstm ? Initial(c, rec, 6, d, p + "c0") : "";
    std::vector<std::string> hs(static_cast<size_t>(rec.steps));
    const bool backward = rec.reverse_only || d == 1;
    for (int64_t k = 0; k < rec.steps; ++k) {
      const int64_t t = backward ? rec.steps - 1 - k : k;
      std::string xt = t == 0 ? xs : xs + ":" + std::to_string(t);
      h = Step(c, rec, dw, xt, h, &cs, p + "t" + std::to_string(t) + "/");
      hs[static_cast<size_t>(t)] = h;
    }
    y_dirs.push_back(
        c.Emit(p + "Y", "Pack", hs, {{"N", MakeAttr(rec.steps)}, {"axis", MakeAttr(int64_t{0})}}));
    h_last.push_back(h);
    c_last.push_back(cs);
  }
  AttrMap pack = {{"N", MakeAttr(static_cast<int64_t>(rec.directions))},
                  {"axis", MakeAttr(int64_t{1})}};
  c.Output(0, c.Emit("", "Pack", y_dirs, pack));
  pack["axis"] = MakeAttr(int64_t{0});
  if (c.has_output(1)) c.Output(1, c.Emit("Y_h", "Pack", h_last, pack));
  if (c.has_output(2) && cell == Cell::kLstm) c.Output(2, c.Emit("Y_c", "Pack", c_last, pack));
  return Status::Ok();
}

Status Lstm(NodeContext& c) { return Recurrent(c, Cell::kLstm); }
Status Gru(NodeContext& c) { return Recurrent(c, Cell::kGru); }
Status Rnn(NodeContext& c) { return Recurrent(c, Cell::kRnn); }

}  // namespace

const std::vector<OpRule>& RnnRules() {
  static const std::vector<OpRule> rules = {
      {"LSTM", Lstm},
      {"GRU", Gru},
      {"RNN", Rnn},
  };
  return rules;
}

}  // namespace graph::onnx_import
