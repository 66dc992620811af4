#include "log/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <atomic>

namespace smemu::log {
namespace {

std::atomic<Format> g_format{Format::kText};

std::string RenderText(std::string_view message, const nlohmann::json& fields) {
  std::string line(message);
  for (const auto& [key, value] : fields.items()) {
    line += ' ';
    line += key;
    line += '=';
    line += value.is_string() ? value.get<std::string>() : value.dump();
  }
  return line;
}

}  // namespace

void Configure(Format format, spdlog::level::level_enum level) {
  g_format = format;
  // Logs go to stderr: stdout carries only the "listening on" line that scripts wait for.
  spdlog::set_default_logger(spdlog::stderr_color_mt("sagemaker-emulator"));
  spdlog::set_level(level);
  if (format == Format::kJson) {
    // The event renders its own JSON members after time and level.
    spdlog::set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%v})",
                        spdlog::pattern_time_type::utc);
  } else {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  }
}

void Event(spdlog::level::level_enum level, std::string_view message,
           const nlohmann::json& fields) {
  if (!spdlog::should_log(level)) return;
  if (g_format == Format::kJson) {
    nlohmann::json object = fields;
    object["msg"] = message;
    const std::string text = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // Strip the outer braces: the pattern supplies them around time and level.
    spdlog::log(level, "{}", std::string_view(text).substr(1, text.size() - 2));
  } else {
    spdlog::log(level, "{}", RenderText(message, fields));
  }
}

}  // namespace smemu::log
