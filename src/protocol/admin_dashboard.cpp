// The dashboard's routes of the admin API: its page, the state snapshot it polls, and the report
// (the page with the state and the cost ledger inside it).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "domain/time_format.hpp"
#include "embed/embedded_files.hpp"
#include "protocol/admin_internal.hpp"
#include "protocol/cost_report.hpp"
#include "protocol/percent_encoding.hpp"

namespace smemu::protocol {
namespace {

using nlohmann::json;

// An HTML page of the admin API: scripts and styles inline, images as data URLs, and fetches only
// where `connect` allows ("connect-src 'self'; " or nothing at all).
HttpResponse HtmlPage(std::string body, std::string_view connect, const std::string& request_id) {
  HttpResponse response;
  response.headers = {{"Content-Type", "text/html; charset=utf-8"},
                      {"Cache-Control", "no-store"},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Referrer-Policy", "no-referrer"},
                      {"Content-Security-Policy",
                       "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                       "img-src data:; " +
                           std::string(connect) + "base-uri 'none'; form-action 'none'"},
                      {"x-amzn-RequestId", request_id}};
  response.body = std::move(body);
  return response;
}

// The dashboard page, compiled into the binary from ui/dashboard.html (see cmake/Embed.cmake).
std::string_view DashboardPage() {
  static const std::string_view page = EmbeddedFiles().at("ui/dashboard.html");
  return page;
}

// Two JSON objects' texts as one object: the first's members, then the second's. The first is
// the large one (megabytes at 10,000 plans): it is appended to, never copied.
std::string JoinObjects(std::string first, std::string_view second) {
  if (second.size() <= 2) return first;  // "{}"
  if (first.size() <= 2) return std::string(second);
  first.back() = ',';
  first.append(second.substr(1));
  return first;
}

// The overview's JSON text: the kinds' sections as written (taken from `overview`), then the rest,
// which is small.
std::string OverviewText(ops::AdminViews::Overview& overview) {
  auto iso = [](TimePoint time) { return domain::FormatIso8601(time); };
  json pools = json::array();
  for (const ops::PoolView& pool : overview.pools) {
    json free = json::array();
    for (const auto& [from, count] : pool.free_from_now) {
      free.push_back({{"from", iso(from)}, {"free", count}});
    }
    pools.push_back({{"region", pool.key.region},
                     {"availability_zone", pool.key.availability_zone},
                     {"instance_type", pool.key.instance_type},
                     {"reservable", pool.reservable},
                     {"on_demand", pool.on_demand},
                     {"free_reservable", std::move(free)}});
  }
  json on_demand = json::array();
  for (const auto& use : overview.on_demand) {
    on_demand.push_back({{"region", use.region},
                         {"instance_type", use.instance_type},
                         {"total", use.total ? json(*use.total) : json(nullptr)},
                         {"in_use", use.in_use}});
  }
  json state;
  state["pools"] = std::move(pools);
  state["on_demand"] = std::move(on_demand);
  state["quotas_for"] = {{"account", overview.quotas_for.account},
                         {"region", overview.quotas_for.region}};
  state["quotas"] = QuotasJson(overview.quotas);
  state["faults"] = FaultsJson(overview.faults);
  return JoinObjects(std::move(overview.sections), state.dump());
}

}  // namespace

HttpResponse Router::AdminPage(const AdminCall& call) const {
  // Everything the page needs is inline or from this server: nothing leaves the machine.
  return HtmlPage(std::string(DashboardPage()), "connect-src 'self'; ", call.outcome.request_id);
}

HttpResponse Router::AdminState(const AdminCall& call) const {
  // The quotas shown are the caller's: the signing account's, or the server's own account's.
  const ops::Caller caller = CallerOf(call.request, call.outcome.request_id);
  const std::optional<std::string> account = call.AccountFilter(*this);
  ops::AdminViews::Overview overview =
      admin_views_.Snapshot({caller.account, caller.region}, account,
                            FormDecode(QueryParameter(call.request.target, "since")));
  if (account) {  // a caller signing as one account sees the rules that may touch it
    std::erase_if(overview.faults, [&](const ops::FaultRuleView& view) {
      return !view.rule.scope.account.empty() && view.rule.scope.account != *account;
    });
  }
  const json head = {{"version", overview.version},
                     {"unchanged", overview.unchanged},
                     {"clock", ClockJson(overview.clock)}};
  if (overview.unchanged) return call.Reply(head);
  // One object: the (large) rest as written, then the small head.
  return call.ReplyText(JoinObjects(OverviewText(overview), head.dump()));
}

// GET /_emulator/report: the dashboard page with the state and the whole cost ledger inside it,
// one self-contained file to save and share after a demo (it loads nothing).
HttpResponse Router::AdminReport(const AdminCall& call) const {
  const ops::Caller caller = CallerOf(call.request, call.outcome.request_id);
  const std::optional<std::string> account = call.AccountFilter(*this);
  ops::AdminViews::Overview overview =
      admin_views_.Snapshot({caller.account, caller.region}, account);
  auto ledger = admin_views_.Costs({std::nullopt, std::nullopt, account});
  if (!ledger) return call.Fail(ledger.error());
  const json head = {{"version", overview.version}, {"clock", ClockJson(overview.clock)}};
  const std::string data = R"({"generated_at":)" +
                           json(domain::FormatIso8601(overview.clock.now)).dump() + R"(,"state":)" +
                           JoinObjects(OverviewText(overview), head.dump()) + R"(,"costs":)" +
                           CostsText(*ledger, account) + "}";
  // Inside a script element only "</" could end it early; JSON allows "<\/" for it.
  std::string inline_data;
  for (const char c : data) {
    if (c == '/' && !inline_data.empty() && inline_data.back() == '<') inline_data += '\\';
    inline_data += c;
  }
  constexpr std::string_view kSlot =
      R"(<script id="report-data" type="application/json"></script>)";
  std::string page(DashboardPage());
  const auto slot = page.find(kSlot);
  if (slot == std::string::npos) {
    return call.Fail({domain::ErrorCode::kInternalFailure,
                      "The dashboard page has no place for the report's data.", 500});
  }
  page.replace(slot, kSlot.size(),
               R"(<script id="report-data" type="application/json">)" + inline_data + "</script>");
  // The report connects to nothing, not even this server.
  HttpResponse response = HtmlPage(std::move(page), "", call.outcome.request_id);
  response.headers.emplace_back("Content-Disposition",
                                "inline; filename=\"sagemaker-emulator-report.html\"");
  return response;
}

}  // namespace smemu::protocol
