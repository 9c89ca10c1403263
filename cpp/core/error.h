// error.h -- the engine's exception types; bindings map them to tapegrad.errors.
#pragma once
#include <exception>
#include <string>
#include <utility>

namespace tg {

// TF's error codes (tapegrad.errors.OK ..); an OpFailure carries one.
enum class ErrorCode : int {
  Cancelled = 1, Unknown = 2, InvalidArgument = 3, DeadlineExceeded = 4, NotFound = 5,
  AlreadyExists = 6, PermissionDenied = 7, ResourceExhausted = 8, FailedPrecondition = 9,
  Aborted = 10, OutOfRange = 11, Unimplemented = 12, Internal = 13, Unavailable = 14,
  DataLoss = 15, Unauthenticated = 16,
};

// Note [One set of error classes]: an op's failure; module.cpp raises the tapegrad.errors class
// of its code. The message can be prefixed with the op's name on the way out (see apply()).
struct OpFailure : std::exception {
  ErrorCode code;
  std::string message;
  OpFailure(ErrorCode c, std::string m) : code(c), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
  // Prefixes "name: " unless the message already starts with name.
  void name_op(const std::string& name) {
    if (message.compare(0, name.size(), name) != 0) message = name + ": " + message;
  }
};

template <ErrorCode C> struct Failure : OpFailure {
  explicit Failure(std::string m) : OpFailure(C, std::move(m)) {}
};
// Bad shapes, dtypes, axes, indices or attributes (Python: InvalidArgumentError, a ValueError).
struct InvalidArgument : Failure<ErrorCode::InvalidArgument> { using Failure::Failure; };
// A tensor too large to allocate (Python: ResourceExhaustedError, "OOM when allocating ...").
using ResourceExhausted = Failure<ErrorCode::ResourceExhausted>;
using OutOfRange = Failure<ErrorCode::OutOfRange>;
using NotFound = Failure<ErrorCode::NotFound>;  // no kernel for a type the op takes (as TF's)
using Unimplemented = Failure<ErrorCode::Unimplemented>;
using FailedPrecondition = Failure<ErrorCode::FailedPrecondition>;
using Internal = Failure<ErrorCode::Internal>;
// A non-finite value under enable_check_numerics (Python: InvalidArgumentError).
struct NumericsError : InvalidArgument { using InvalidArgument::InvalidArgument; };

// Misuse of the tape (Python: tapegrad.errors.TapeError, a RuntimeError as in TF).
struct TapeMisuse : std::exception {
  std::string message;
  explicit TapeMisuse(std::string m) : message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

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
