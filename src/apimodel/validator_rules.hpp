// Private to the validator's files: how a rejected value is shown and how the model's constraints
// are worded, shared by the request validator (validator.cpp) and the response checker
// (response_checker.cpp), which differ only in how they report what these find.
#pragma once

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "apimodel/service_model.hpp"

namespace smemu::apimodel {

// Length as the service counts it: characters, not bytes.
std::size_t CodePoints(const std::string& text);

// A constraint's bound as AWS writes it: whole numbers without a fraction.
std::string FormatNumber(double value);

// How a rejected value is quoted: strings as written, containers in Java's toString style.
std::string Render(const nlohmann::json& value);

// The constraints of a string, a collection's size and a number, worded as AWS words them
// ("have length less than or equal to 63"): `broken` is called with each rule the value breaks.
void CheckLengthRules(const Shape& shape, std::size_t length, const auto& broken) {
  const auto size = static_cast<double>(length);
  if (shape.max && size > *shape.max) {
    broken("have length less than or equal to " + FormatNumber(*shape.max));
  }
  if (shape.min && size < *shape.min) {
    broken("have length greater than or equal to " + FormatNumber(*shape.min));
  }
}

void CheckStringRules(const Shape& shape, const std::string& text, const auto& broken) {
  if (!shape.enum_values.empty() && std::find(shape.enum_values.begin(), shape.enum_values.end(),
                                              text) == shape.enum_values.end()) {
    std::string set;
    for (const auto& e : shape.enum_values) set += (set.empty() ? "" : ", ") + e;
    broken("satisfy enum value set: [" + set + "]");
  }
  if (shape.pattern && !shape.pattern->Matches(text)) {
    broken("satisfy regular expression pattern: " + shape.pattern->source());
  }
  CheckLengthRules(shape, CodePoints(text), broken);
}

void CheckRangeRules(const Shape& shape, double number, const auto& broken) {
  if (shape.max && number > *shape.max) {
    broken("have value less than or equal to " + FormatNumber(*shape.max));
  }
  if (shape.min && number < *shape.min) {
    broken("have value greater than or equal to " + FormatNumber(*shape.min));
  }
}

}  // namespace smemu::apimodel
