#include "graph/einsum.h"

#include <algorithm>
#include <map>

namespace graph {

namespace {

// Replaces "..." by '.', and checks the characters.
Result<std::string> Term(const std::string& t, const std::string& equation) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 3, "...") == 0) {
      if (out.find('.') != std::string::npos) {
        return InvalidArgument("einsum '" + equation + "': more than one ellipsis in a term");
      }
      out += '.';
      i += 2;
    } else if ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z')) {
      out += t[i];
    } else if (t[i] != ' ') {
      return InvalidArgument("einsum '" + equation + "': unexpected character '" +
                             std::string(1, t[i]) + "'");
    }
  }
  return out;
}

}  // namespace

std::string EinsumEquation::ToString() const {
  auto write = [](const std::string& t) {
    std::string s;
    for (char ch : t) s += ch == '.' ? std::string("...") : std::string(1, ch);
    return s;
  };
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? "," : "") + write(inputs[i]);
  return s + "->" + write(output);
}

Result<EinsumEquation> ParseEinsum(const std::string& equation) {
  EinsumEquation eq;
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    GRAPH_ASSIGN_OR_RETURN(std::string t, Term(lhs.substr(start, comma - start), equation));
    eq.inputs.push_back(t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    GRAPH_ASSIGN_OR_RETURN(eq.output, Term(equation.substr(arrow + 2), equation));
  } else {
    std::map<char, int> count;
    for (const std::string& t : eq.inputs) {
      for (char ch : t) ++count[ch];
    }
    if (count.count('.')) eq.output += '.';
    for (const auto& [ch, n] : count) {
      if (ch != '.' && n == 1) eq.output += ch;
    }
  }
  for (char ch : eq.output) {
    bool found = std::any_of(eq.inputs.begin(), eq.inputs.end(),
                             [&](const std::string& t) { return t.find(ch) != std::string::npos; });
    if (!found || std::count(eq.output.begin(), eq.output.end(), ch) > 1) {
      return InvalidArgument("einsum '" + equation + "': output subscript '" + std::string(1, ch) +
                             "' is repeated or belongs to no operand");
    }
  }
  return eq;
}

Result<Shape> EinsumShape(const EinsumEquation& eq, const std::vector<Shape>& shapes) {
  if (shapes.size() != eq.inputs.size()) {
    return InvalidArgument("einsum '" + eq.ToString() + "' has " +
                           std::to_string(eq.inputs.size()) + " operands, got " +
                           std::to_string(shapes.size()));
  }
  std::map<char, int64_t> size;
  Shape ellipsis = Shape::Scalar();  // broadcast over the operands that have one
  bool ellipsis_known = true;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::string& t = eq.inputs[k];
    const Shape& s = shapes[k];
    if (!s.known_rank()) {
      if (t.find('.') != std::string::npos) ellipsis_known = false;
      continue;
    }
    const int named = static_cast<int>(t.size()) - (t.find('.') != std::string::npos);
    if (t.find('.') == std::string::npos ? s.rank() != named : s.rank() < named) {
      return InvalidArgument("einsum '" + eq.ToString() + "': operand " + std::to_string(k) +
                             " is " + s.ToString() + ", its term '" + t + "' needs rank " +
                             std::to_string(named));
    }
    const int extra = s.rank() - named;
    int d = 0;
    for (char ch : t) {
      if (ch == '.') {
        std::vector<int64_t> dims(s.dims().begin() + d, s.dims().begin() + d + extra);
        Shape e(dims);
        // NumPy-style broadcast of the ellipsis dimensions.
        std::vector<int64_t> a = ellipsis.dims(), b = e.dims();
        if (a.size() < b.size()) std::swap(a, b);
        for (size_t i = 0; i < b.size(); ++i) {
          int64_t& x = a[a.size() - b.size() + i];
          const int64_t y = b[i];
          if (x == 1 || x == kUnknownDim) {
            x = x == kUnknownDim && y == 1 ? kUnknownDim : y;
          } else if (y != 1 && y != kUnknownDim && y != x) {
            return InvalidArgument("einsum '" + eq.ToString() +
                                   "': ellipsis dimensions do not broadcast");
          }
        }
        ellipsis = Shape(a);
        d += extra;
        continue;
      }
      const int64_t n = s.dim(d++);
      auto [it, inserted] = size.emplace(ch, n);
      if (!inserted && n != kUnknownDim) {
        if (it->second == kUnknownDim || it->second == 1) {
          it->second = n;
        } else if (n != it->second && n != 1) {
          return InvalidArgument("einsum '" + eq.ToString() + "': subscript '" +
                                 std::string(1, ch) + "' has sizes " + std::to_string(it->second) +
                                 " and " + std::to_string(n));
        }
      }
    }
  }
  std::vector<int64_t> out;
  for (char ch : eq.output) {
    if (ch == '.') {
      if (!ellipsis_known) return Shape();
      out.insert(out.end(), ellipsis.dims().begin(), ellipsis.dims().end());
    } else {
      auto it = size.find(ch);
      out.push_back(it == size.end() ? kUnknownDim : it->second);
    }
  }
  return Shape(out);
}

}  // namespace graph
