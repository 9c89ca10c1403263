// shape.h -- shapes, element counts and NumPy broadcasting of two shapes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tg {

using Shape = std::vector<int64_t>;

int64_t num_elements(const Shape& s);
std::string shape_str(const Shape& s);                       // "(2, 3)"
bool broadcast_shapes(const Shape& a, const Shape& b, Shape& out);  // false if incompatible
// Normalises a possibly negative axis; throws InvalidArgumentError naming op when out of range.
int normalize_axis(int64_t axis, int ndim, const char* op);

}  // namespace tg
