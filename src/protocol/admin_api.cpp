// The emulator's own admin API under /_emulator/: health, the virtual clock, reset.
#include <openssl/crypto.h>

#include <nlohmann/json.hpp>

#include "domain/time_format.hpp"
#include "protocol/router_internal.hpp"
#include "smemu/version.hpp"

namespace smemu::protocol {
namespace {

using nlohmann::json;

json ClockJson(const VirtualClock::State& state) {
  return {{"now", domain::FormatIso8601(state.now)},
          {"epoch", domain::ToEpochSeconds(state.now)},
          {"frozen", state.frozen}};
}

domain::AwsError BadClockRequest(const std::string& message) {
  return domain::ValidationException(message);
}

// Reads {"now": ISO 8601 | epoch seconds, "advance_seconds": N >= 0, "frozen": bool}.
domain::Result<ops::ClockChange> ReadClockChange(const json& body) {
  ops::ClockChange change;
  for (const auto& [key, value] : body.items()) {
    if (key == "now") {
      if (value.is_string()) {
        change.set_to = domain::ParseIso8601(value.get<std::string>());
        if (!change.set_to) {
          return BadClockRequest("'now' must be an ISO 8601 time such as 2026-01-31T08:00:00Z.");
        }
      } else if (value.is_number()) {
        change.set_to = domain::FromEpochSeconds(value.get<double>());
      } else {
        return BadClockRequest("'now' must be an ISO 8601 string or epoch seconds.");
      }
    } else if (key == "advance_seconds") {
      if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1e11) {
        return BadClockRequest("'advance_seconds' must be a number of seconds >= 0.");
      }
      change.advance_by = Millis{static_cast<long long>(std::llround(value.get<double>() * 1000))};
    } else if (key == "frozen") {
      if (!value.is_boolean()) return BadClockRequest("'frozen' must be true or false.");
      change.frozen = value.get<bool>();
    } else {
      return BadClockRequest("Unknown member '" + key +
                             "'; expected now, advance_seconds or frozen.");
    }
  }
  return change;
}

// The value of `name` in the request's query string ("" when absent).
std::string QueryParameter(const std::string& target, const std::string& name) {
  const auto question = target.find('?');
  if (question == std::string::npos) return "";
  std::string_view query(target);
  query.remove_prefix(question + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto equals = pair.find('=');
    if (pair.substr(0, equals) == name) {
      return equals == std::string_view::npos ? "" : std::string(pair.substr(equals + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return "";
}

json PoolJson(const ops::PoolView& pool) {
  json reservations = json::array();
  for (const auto& r : pool.reservations) {
    reservations.push_back({{"training_plan_arn", r.training_plan_arn},
                            {"start", domain::FormatIso8601(r.window.start)},
                            {"end", domain::FormatIso8601(r.window.end)},
                            {"count", r.count}});
  }
  json free = json::array();
  for (const auto& [from, count] : pool.free_from_now) {
    free.push_back({{"from", domain::FormatIso8601(from)}, {"free", count}});
  }
  return {{"region", pool.key.region},
          {"availability_zone", pool.key.availability_zone},
          {"instance_type", pool.key.instance_type},
          {"reservable", pool.reservable},
          {"on_demand", pool.on_demand},
          {"reservations", std::move(reservations)},
          {"free_reservable", std::move(free)}};
}

// Reads {"region", "availability_zone", "instance_type", "reservable"?, "on_demand"?}.
domain::Result<ops::PoolChange> ReadPoolChange(const json& body) {
  ops::PoolChange change;
  for (const char* field : {"region", "availability_zone", "instance_type"}) {
    if (!body.contains(field) || !body[field].is_string() ||
        body[field].get<std::string>().empty()) {
      return domain::ValidationException(std::string("'") + field + "' is required (a string).");
    }
  }
  change.key = {body["region"], body["availability_zone"], body["instance_type"]};
  for (const auto& [key, value] : body.items()) {
    if (key == "reservable" || key == "on_demand") {
      if (!value.is_number_integer() || value.get<long long>() < 0 ||
          value.get<long long>() > 100000) {
        return domain::ValidationException("'" + key + "' must be an integer from 0 to 100000.");
      }
      (key == "reservable" ? change.reservable : change.on_demand) = value.get<int>();
    } else if (key != "region" && key != "availability_zone" && key != "instance_type") {
      return domain::ValidationException("Unknown member '" + key + "'.");
    }
  }
  if (!change.reservable && !change.on_demand) {
    return domain::ValidationException("Give 'reservable', 'on_demand' or both.");
  }
  return change;
}

}  // namespace

Router::AdminAccess Router::AccessOf(const HttpRequest& request) const {
  if (config_.admin_token.empty()) {
    if (!config_.admin_open) return AdminAccess::kDenied;
    // On loopback without a token the local operator (curl, the dashboard) sees everything, as
    // it may reset everything; a caller that signs as an AWS account sees only that account.
    return request.Header("Authorization") == nullptr ? AdminAccess::kFull
                                                      : AdminAccess::kOwnAccount;
  }
  std::string presented;
  if (const std::string* header = request.Header("X-Emulator-Admin-Token")) {
    presented = *header;
  } else if (const std::string* authorization = request.Header("Authorization");
             authorization != nullptr && authorization->rfind("Bearer ", 0) == 0) {
    presented = authorization->substr(7);
  }
  const std::string& expected = config_.admin_token;
  const bool match = presented.size() == expected.size() &&
                     CRYPTO_memcmp(presented.data(), expected.data(), expected.size()) == 0;
  return match ? AdminAccess::kFull : AdminAccess::kDenied;
}

HttpResponse Router::HandleAdmin(const HttpRequest& request, Outcome& outcome) const {
  outcome.protocol = WireProtocol::kAdmin;
  const std::string_view path = request.Path();
  outcome.operation = std::string(path);
  auto reply = [&](const json& body) {
    return RenderJson(200, body.dump(), WireProtocol::kAdmin, outcome.request_id);
  };
  auto fail = [&](const domain::AwsError& error) {
    return RenderError(error, WireProtocol::kAdmin, outcome.request_id);
  };
  auto wrong_method = [&](const char* allowed) {
    HttpResponse response =
        fail({"MethodNotAllowedException",
              std::string(path) + " accepts " + allowed + ", not " + request.method + ".", 405});
    response.headers.emplace_back("Allow", allowed);
    return response;
  };

  if (path == "/_emulator/health") {
    if (request.method != "GET") return wrong_method("GET");
    return reply({{"status", "ok"}, {"version", kVersion}});
  }
  const AdminAccess access = AccessOf(request);
  if (access == AdminAccess::kDenied) {
    return fail({"AccessDeniedException",
                 config_.admin_token.empty()
                     ? "The admin API is disabled: the server listens on a non-loopback address "
                       "and was started without --admin-token."
                     : "The admin API requires the token given with --admin-token, in the "
                       "X-Emulator-Admin-Token header or as Authorization: Bearer <token>.",
                 403});
  }
  if (path == "/_emulator/clock") {
    if (request.method == "GET") return reply(ClockJson(emulator_.GetClock()));
    if (request.method != "POST") return wrong_method("GET, POST");
    auto body = ParseJsonObject(request.body, config_.max_json_depth);
    if (!body) return fail(body.error());
    auto change = ReadClockChange(*body);
    if (!change) return fail(change.error());
    auto state = emulator_.ChangeClock(*change);
    if (!state) return fail(state.error());
    return reply(ClockJson(*state));
  }
  if (path == "/_emulator/capacity") {
    if (request.method == "GET") {
      // Without the token a caller sees its own account's plans and holders only.
      std::optional<std::string> account;
      if (access == AdminAccess::kOwnAccount)
        account = CallerOf(request, outcome.request_id).account;
      const auto view =
          emulator_.Capacity(QueryParameter(request.target, "region"),
                             QueryParameter(request.target, "instance_type"), account);
      json pools = json::array();
      for (const ops::PoolView& pool : view.pools) pools.push_back(PoolJson(pool));
      json in_use = json::array();
      for (const ops::Holder& holder : view.in_use) {
        json entry = {{"arn", holder.arn},
                      {"kind", holder.kind},
                      {"region", holder.region},
                      {"instance_type", holder.instance_type},
                      {"count", holder.count}};
        if (holder.training_plan_arn.empty()) {
          entry["on_demand"] = true;
        } else {
          entry["training_plan_arn"] = holder.training_plan_arn;
        }
        in_use.push_back(std::move(entry));
      }
      return reply({{"now", domain::FormatIso8601(view.now)},
                    {"pools", std::move(pools)},
                    {"in_use", std::move(in_use)}});
    }
    if (request.method != "POST") return wrong_method("GET, POST");
    auto body = ParseJsonObject(request.body, config_.max_json_depth);
    if (!body) return fail(body.error());
    auto change = ReadPoolChange(*body);
    if (!change) return fail(change.error());
    auto pool = emulator_.ChangeCapacity(*change);
    if (!pool) return fail(pool.error());
    return reply(PoolJson(*pool));
  }
  if (path == "/_emulator/metrics") {
    if (request.method != "GET") return wrong_method("GET");
    if (access == AdminAccess::kOwnAccount) {
      return fail({"AccessDeniedException",
                   "The metrics cover every account: ask without AWS credentials, or with the "
                   "admin token.",
                   403});
    }
    HttpResponse response = RenderJson(200, metrics_->Render(emulator_.TakeCensus()),
                                       WireProtocol::kAdmin, outcome.request_id);
    response.headers[0].second = "text/plain; version=0.0.4; charset=utf-8";
    return response;
  }
  if (path == "/_emulator/reset") {
    if (request.method != "POST") return wrong_method("POST");
    emulator_.Reset();
    return reply({{"status", "reset"}, {"clock", ClockJson(emulator_.GetClock())}});
  }
  return fail({"NotFoundException", "No admin resource at " + std::string(path) + ".", 404});
}

}  // namespace smemu::protocol
