// Structured log lines through spdlog. Each event has a message and fields; the output format is
// chosen once at start: `text` (message key=value ...) or `json` (one JSON object per line).
#pragma once

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <string_view>

namespace smemu::log {

enum class Format { kText, kJson };

// Installs the format on spdlog's default logger. Call once at start, before serving.
void Configure(Format format, spdlog::level::level_enum level);

// Writes one event. `fields` is a JSON object; values are rendered as JSON scalars.
void Event(spdlog::level::level_enum level, std::string_view message,
           const nlohmann::json& fields = nlohmann::json::object());

}  // namespace smemu::log
