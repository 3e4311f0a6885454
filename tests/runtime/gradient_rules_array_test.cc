// Gradient checks of gradient_rules_array.cc's rules: array and image ops.
#include "tests/runtime/gradient_check.h"

namespace runtime::gradient_check {

std::vector<Case> ArrayCases() {
  return {
      {"Rearrangements",
       {"Transpose", "Tile", "Slice", "BroadcastTo", "SplitV"},
       X({2, 3, 4}) + W("w", {2, 3, 4}) + W("v", {3, 1}) + I("perm", {2, 0, 1}) +
           I("mult", {1, 2, 1}) + I("begin", {0, 1, 1}) + I("size", {2, 2, -1}) +
           I("shape", {2, 3, 4}) + I("sizes", {1, -1}) + I("axis", {2}, true) +
           N("m", "Mul", {"x", "w"}) +
           N("t", "Transpose", {"m", "perm"}, A("Tperm", "type: DT_INT32")) +
           N("ti", "Tile", {"m", "mult"}) +
           N("sl", "Slice", {"m", "begin", "size"}, A("Index", "type: DT_INT32")) +
           N("bt", "BroadcastTo", {"v", "shape"}) + N("bm", "Mul", {"bt", "m"}) +
           N("sv", "SplitV", {"m", "sizes", "axis"},
             A("num_split", "i: 2") + A("Tlen", "type: DT_INT32")) +
           N("sv1", "Identity", {"sv:1"})},
      {"SpaceAndDepth",
       {"DepthToSpace", "SpaceToDepth", "SpaceToBatchND", "BatchToSpaceND"},
       X({1, 4, 4, 8}) + W("w", {1, 4, 4, 8}) + I("block", {2, 2}) + I2("pads", {1, 1, 0, 2}) +
           N("m", "Mul", {"x", "w"}) + N("d2s", "DepthToSpace", {"m"}, A("block_size", "i: 2")) +
           N("s2d", "SpaceToDepth", {"d2s"}, A("block_size", "i: 2")) +
           N("s2b", "SpaceToBatchND", {"m", "block", "pads"}) + N("sq", "Square", {"s2b"}) +
           N("b2s", "BatchToSpaceND", {"sq", "block", "pads"})},
      {"PaddingAndResizing",
       {"PadV2", "MirrorPad", "ResizeNearestNeighbor"},
       X({1, 4, 5, 2}) + W("w", {1, 4, 5, 2}) + W("cv", {}) + I2("pads", {0, 0, 1, 2, 3, 1, 0, 0}) +
           I("up", {7, 9}) + I("down", {3, 3}) + N("m", "Mul", {"x", "w"}) +
           N("pv", "PadV2", {"m", "pads", "cv"}) +
           N("mr", "MirrorPad", {"m", "pads"}, A("mode", "s: 'REFLECT'")) +
           N("ms", "MirrorPad", {"m", "pads"}, A("mode", "s: 'SYMMETRIC'")) +
           N("rn", "ResizeNearestNeighbor", {"m", "up"}, A("half_pixel_centers", "b: true")) +
           N("rd", "ResizeNearestNeighbor", {"m", "down"})},
      {"TopK",
       {"TopKV2"},
       X({3, 6}) + W("w", {3, 6}) + I("k", {3}, true) + N("m", "Mul", {"x", "w"}) +
           N("tk", "TopKV2", {"m", "k"}, A("sorted", "b: true"))},
      {"Scatters",
       {"Fill", "ScatterNd", "SparseToDense"},
       X({2, 4}) + W("w", {2, 4}) + W("s", {}) + W("v", {2}) + W("d", {}) + I("dims", {2, 3}) +
           "node { name: 'idx' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { "
           "key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { "
           "size: 1 } } int_val: 0 int_val: 2 } } } }\n"
           "node { name: 'sidx' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { "
           "key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { "
           "size: 2 } } int_val: 0 int_val: 1 int_val: 2 int_val: 3 } } } }\n" +
           I("shape", {3, 4}) + N("m", "Mul", {"x", "w"}) +
           N("f", "Fill", {"dims", "s"}, A("index_type", "type: DT_INT32")) +
           N("sc", "ScatterNd", {"idx", "m", "shape"}, A("Tindices", "type: DT_INT32")) +
           N("sd", "SparseToDense", {"sidx", "shape", "v", "d"}, A("Tindices", "type: DT_INT32"))},
  };
}

}  // namespace runtime::gradient_check
