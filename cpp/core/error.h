// error.h -- the engine's exception types; bindings map them to tapegrad.errors.
#pragma once
#include <stdexcept>
#include <string>

namespace tg {

// Bad shapes, dtypes, axes, indices or attributes (Python: InvalidArgumentError, a ValueError).
struct InvalidArgument : std::runtime_error { using std::runtime_error::runtime_error; };
// Misuse of the tape (Python: RuntimeError).
struct TapeMisuse : std::runtime_error { using std::runtime_error::runtime_error; };
// A non-finite value under enable_check_numerics (Python: InvalidArgumentError).
struct NumericsError : InvalidArgument { using InvalidArgument::InvalidArgument; };

inline std::string to_piece(const std::string& s) { return s; }
inline std::string to_piece(const char* s) { return s; }
template <class T> std::string to_piece(const T& v) { return std::to_string(v); }

// Builds a message from pieces: fail_if(cond, "MatMul: ", ...).
template <class... A> std::string cat(const A&... a) {
  std::string s;
  ((s += to_piece(a)), ...);
  return s;
}

}  // namespace tg
