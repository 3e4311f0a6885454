// How every command prints a step or planning time: "12.346 ms". Thread safety:
// a pure function.
#pragma once

#include <string>

namespace graph {

// `seconds` in milliseconds to three decimals; past a billion ms (11 days) in
// exponent form ("1e+303 ms"), which %.3f would spell in hundreds of digits.
std::string FormatMs(double seconds);

}  // namespace graph
