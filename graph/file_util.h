// Whole-file reads and atomic writes. Errors name the path and the OS's reason.
#pragma once

#include <string>

#include "graph/status.h"

namespace graph {

// Regular files only: a directory, FIFO or device is an error (never a wait).
Result<std::string> ReadFile(const std::string& path);
// For readers that open the file themselves (LibTorch's archives): the same
// check, by path, before they do.
Status CheckRegularFile(const std::string& path);
// Writes to a temporary file beside `path`, flushes it, then renames it over
// `path`, so readers never see a half-written file and a crash leaves the old one.
Status WriteFileAtomic(const std::string& path, const std::string& contents);

// The directory part of `path` with its trailing '/', or "" for a bare name.
std::string DirName(const std::string& path);

// Whether `p` names a file inside a model's directory: relative, non-empty,
// with no ".." component (TF.js weight paths, ONNX external data locations).
bool SafeRelativePath(const std::string& p);

// Whether `dir` + `p` (a SafeRelativePath), symbolic links resolved, is still
// inside `dir` ("" : the current directory): a link out of a model's directory
// would let a model read any file as its weights, and carry it into exports.
// A file that does not exist counts as inside (its read then says so).
bool ResolvesInside(const std::string& dir, const std::string& p);

}  // namespace graph
