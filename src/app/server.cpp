#include "smemu/server.hpp"

#include <sys/resource.h>

#include <atomic>
#include <fstream>
#include <future>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "apimodel/embedded_models.hpp"
#include "app/scenario.hpp"
#include "config/capacity_config.hpp"
#include "domain/aws_names.hpp"
#include "http/container_client.hpp"
#include "http/peer_scope.hpp"
#include "http/transport.hpp"
#include "log/log.hpp"
#include "ops/emulator.hpp"
#include "ops/faults.hpp"
#include "ops/quota_document.hpp"
#include "protocol/credentials.hpp"
#include "protocol/router.hpp"
#include "protocol/sigv4.hpp"
#include "store/group_commit.hpp"
#include "store/state_store.hpp"

namespace smemu {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(5);

const Clock& DefaultClock() {
  static const SystemClock clock;
  return clock;
}

bool IsLoopback(const std::string& host) {
  boost::system::error_code ec;
  const auto address = http::net::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

// A JSON file's document. Throws std::runtime_error naming the file (`what` it is) and the problem.
nlohmann::json ReadJsonFile(const std::string& path, const std::string& what) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot read the " + what);
  std::stringstream text;
  text << file.rdbuf();
  auto doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw std::runtime_error(path + ": not valid JSON");
  return doc;
}

// The quotas of a --quotas file. Throws std::runtime_error naming the file and the problem.
domain::QuotaTable LoadQuotas(const std::string& path) {
  const nlohmann::json doc = ReadJsonFile(path, "quotas file");
  auto document = ops::ReadQuotaDocument(doc);
  if (!document) throw std::runtime_error(path + ": " + document.error().message);
  domain::QuotaTable table;
  ops::ApplyQuotaDocument(*document, table);
  return table;
}

ops::HostingOptions HostingOf(const ServerOptions& options) {
  ops::HostingOptions hosting;
  hosting.provisioning_delay = options.provisioning_delay;
  hosting.plan_payment_delay = options.plan_payment_delay;
  hosting.routing_seed = options.routing_seed;
  hosting.probe = [timeout = options.ping_timeout](const ops::ContainerAddress& container) {
    return http::PingContainer(container.host, container.port, timeout);
  };
  return hosting;
}

const char* AdminRule(const ServerOptions& options) {
  if (!options.admin_token.empty()) return "the admin API requires the token";
  switch (options.admin_from) {
    case AdminPeers::kLoopback:
      return "the admin API answers loopback callers only";
    case AdminPeers::kLocalNetworks:
      return "the admin API answers loopback callers and this machine's own networks";
    case AdminPeers::kAnywhere:
      break;
  }
  return "the admin API answers every caller (--admin-from any): anyone who can reach the port "
         "can reset the state and move the clock";
}

// Off loopback, says who can reach what, so that an exposed server is a visible choice.
void WarnAboutExposure(const ServerOptions& options, bool signatures_checked) {
  if (IsLoopback(options.host)) return;
  const std::string aws = signatures_checked
                              ? "the AWS APIs require signatures by --credentials"
                              : "the AWS APIs are open to anyone who can reach the port";
  log::Event(spdlog::level::warn,
             "listening on a non-loopback address: " + aws + "; " + AdminRule(options),
             {{"host", options.host}});
}

// The transport's lines about itself (accept failures, the connection cap), into the log.
void LogTransportReport(const http::TransportReport& report) {
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& [name, text] : report.texts) fields[name] = text;
  for (const auto& [name, number] : report.numbers) fields[name] = number;
  log::Event(report.level == http::TransportReport::Level::kWarning ? spdlog::level::warn
                                                                    : spdlog::level::info,
             report.message, fields);
}

}  // namespace

struct Server::Impl {
  ServerOptions options;
  const Clock& base_clock;
  std::unique_ptr<store::StateStore> store;
  std::unique_ptr<ops::Emulator> emulator;
  // Acknowledges writes once they are on disk, one sync for many (store::GroupCommitter). Started
  // after the Emulator's start-up writes, which commit synchronously; stopped before it.
  std::unique_ptr<store::GroupCommitter> committer;
  std::unique_ptr<protocol::Router> router;
  // One io_context per thread (see http::Transport); the guards keep a context with no
  // connection yet running.
  std::vector<std::unique_ptr<http::net::io_context>> contexts;
  std::vector<http::net::executor_work_guard<http::net::io_context::executor_type>> keep_running;
  std::atomic<std::size_t> next_container_call{0};
  std::unique_ptr<http::Transport> transport;
  std::vector<std::thread> threads;
  bool running = false;
};

namespace {

// Applies --init when the database holds no resources yet. The scenario's router trusts its
// calls (no signatures, full admin access): the file comes from whoever started the server.
void ApplyInitScenario(const ServerOptions& options, const store::StateStore& store,
                       ops::Emulator& emulator, const protocol::RouterConfig& config) {
  const std::string& path = *options.init_path;
  if (store.Rows().HasResources()) {
    log::Event(spdlog::level::info, "the database already holds resources: --init not applied",
               {{"init", path}});
    return;
  }
  protocol::RouterConfig trusted = config;
  trusted.verifier = nullptr;
  trusted.rate_limiter = nullptr;  // a scenario's steps are the operator's, not a client's
  trusted.admin_token.clear();
  trusted.admin_peers = AdminPeers::kAnywhere;
  const protocol::Router router(emulator, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(),
                                trusted);
  const int steps = app::ApplyScenarios(path, router, {options.region, options.account_id});
  log::Event(spdlog::level::info, "scenario applied", {{"init", path}, {"steps", steps}});
}

}  // namespace

Server::Server(ServerOptions options, const Clock* base_clock)
    : impl_(new Impl{std::move(options),
                     base_clock ? *base_clock : DefaultClock(),
                     {},
                     {},
                     {},
                     {},
                     {},
                     {},
                     {0},
                     {},
                     {},
                     false}) {}

Server::~Server() { Stop(); }

ops::Emulator& Server::EmulatorForTest() { return *impl_->emulator; }

unsigned short Server::Start() {
  Impl& s = *impl_;
  if (s.running) throw std::logic_error("server already started");
  if (!domain::IsAccountId(s.options.account_id)) {
    throw std::invalid_argument("--account-id must be 12 digits, got '" + s.options.account_id +
                                "'");
  }
  if (!domain::IsRegionName(s.options.region)) {
    throw std::invalid_argument("--region is not a region name: '" + s.options.region + "'");
  }
  // The capacity check consults the control-plane model's enums, and building that model is the
  // costliest step of an empty start (6 ms of 13 measured inside Start): both run on a second
  // thread while this one opens and migrates the database. The price: a bad --capacity file is
  // reported after the database file was opened (and, if new, created).
  std::future<domain::CapacityConfig> capacity_read =
      std::async(std::launch::async,
                 [path = s.options.capacity_path] { return config::LoadCapacityConfig(path); });
  domain::QuotaTable quotas;
  if (s.options.quotas_path) quotas = LoadQuotas(*s.options.quotas_path);
  std::shared_ptr<const protocol::SigV4Verifier> verifier;
  if (s.options.credentials_path) {
    // Clients sign with their wall clock, so the request time is checked against the real clock,
    // not the virtual one.
    verifier = std::make_shared<const protocol::SigV4Verifier>(
        protocol::LoadCredentials(*s.options.credentials_path, s.options.account_id), s.base_clock);
  }
  s.store = std::make_unique<store::StateStore>(s.options.db_path);
  if (s.store->ReadOnly()) {
    log::Event(spdlog::level::warn,
               "the database file is read-only: reads are served, every write answers 500 "
               "InternalFailure until the file is writable and the server restarted",
               {{"db", s.options.db_path}});
  }
  s.emulator = std::make_unique<ops::Emulator>(
      *s.store, s.base_clock, ops::ClockStart{s.options.clock_start, s.options.frozen_clock},
      capacity_read.get(), HostingOf(s.options));
  s.emulator->SetStartingQuotas(std::move(quotas));
  s.committer = std::make_unique<store::GroupCommitter>(
      *s.store, [&emulator = *s.emulator] { return emulator.CloseBatch(); });
  protocol::RouterConfig config;
  config.when_durable = [&committer = *s.committer](std::function<void(bool)> released) {
    committer.WhenDurable(std::move(released));
  };
  config.default_account = s.options.account_id;
  config.default_region = s.options.region;
  config.control_plane_body_limit = s.options.max_body_bytes;
  config.runtime_body_limit = s.options.max_invocation_body_bytes;
  config.admin_token = s.options.admin_token;
  config.admin_peers = s.options.admin_from;
  config.peer_scope = http::ScopeOf;
  config.verifier = verifier;
  config.check_responses = s.options.check_responses;
  if (const auto& rates = s.options.rate_limits) {
    std::vector<protocol::RateLimit> limits;
    if (*rates == "aws") {
      limits = protocol::AwsRateLimits();
    } else {
      auto read = protocol::ReadRateLimits(ReadJsonFile(*rates, "rate-limits file"));
      if (!read) throw std::runtime_error(*rates + ": " + read.error().message);
      limits = std::move(*read);
    }
    config.rate_limiter = std::make_shared<protocol::RateLimiter>(std::move(limits));
    log::Event(spdlog::level::info, "request rates limited", {{"rate_limits", *rates}});
  }
  WarnAboutExposure(s.options, verifier != nullptr);
  if (verifier) {
    log::Event(spdlog::level::info, "strict authentication: AWS requests must be signed",
               {{"credentials", *s.options.credentials_path}});
  }
  const unsigned threads =
      s.options.threads > 0 ? s.options.threads : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < threads; ++i) {
    // Concurrency hint 1: each context is run by one thread, so Asio can skip some locking.
    s.contexts.push_back(std::make_unique<http::net::io_context>(1));
    s.keep_running.push_back(http::net::make_work_guard(*s.contexts.back()));
  }
  config.upstream = [&s, limits = http::ContainerCallLimits{s.options.container_timeout,
                                                            s.options.max_invocation_body_bytes}](
                        const std::string& host, const std::string& port,
                        protocol::HttpRequest request,
                        std::function<void(protocol::UpstreamReply)> done) {
    http::net::io_context& context = *s.contexts[s.next_container_call++ % s.contexts.size()];
    http::SendToContainer(context, host, port, std::move(request), limits, std::move(done));
  };
  config.after = [&s](Millis delay, std::function<void()> then) {
    http::net::io_context& context = *s.contexts[s.next_container_call++ % s.contexts.size()];
    auto timer = std::make_shared<http::net::steady_timer>(context, delay);
    timer->async_wait(
        [timer, then = std::move(then)](const boost::system::error_code&) { then(); });
  };
  if (s.options.init_path) ApplyInitScenario(s.options, *s.store, *s.emulator, config);
  s.router = std::make_unique<protocol::Router>(*s.emulator, apimodel::ControlPlaneModel(),
                                                apimodel::RuntimeModel(), config);
  // After --init: the scenario sets the stage, the rules then break what the tests exercise.
  if (s.options.faults_path) {
    const std::string& path = *s.options.faults_path;
    auto added =
        s.router->AddFaultRules(ReadJsonFile(path, "faults file"), ops::FaultSource::kFile);
    if (!added) throw std::runtime_error(path + ": " + added.error().message);
    log::Event(spdlog::level::info, "fault rules loaded",
               {{"faults", path}, {"rules", added->size()}});
  }
  http::TransportLimits limits;
  limits.header_limit = s.options.max_header_bytes;
  limits.read_timeout = s.options.read_timeout;
  limits.idle_timeout = s.options.idle_timeout;
  limits.max_connections = s.options.max_connections;
  const protocol::Router& router = *s.router;
  http::TransportCallbacks callbacks{
      [&router](protocol::HttpRequest&& request, protocol::Reply reply) {
        router.Handle(std::move(request), std::move(reply));
      },
      [&router](std::string_view target) { return router.BodyLimitFor(target); },
      [&router](int status, const std::string& message) {
        return router.FramingError(status, message);
      },
      LogTransportReport};
  std::vector<http::net::io_context*> contexts;
  for (auto& context : s.contexts) contexts.push_back(context.get());
  s.transport = std::make_unique<http::Transport>(std::move(contexts), s.options.host,
                                                  s.options.port, limits, std::move(callbacks));
  if (limits.max_connections == 0 &&
      s.transport->max_connections() < http::kDefaultMaxConnections) {
    rlimit descriptors{};
    getrlimit(RLIMIT_NOFILE, &descriptors);
    log::Event(spdlog::level::info, "the descriptor limit (ulimit -n) lowers the connection cap",
               {{"max_connections", s.transport->max_connections()},
                {"descriptor_limit", descriptors.rlim_cur}});
  }
  s.transport->StartAccepting();
  for (auto& context : s.contexts) s.threads.emplace_back([&context] { context->run(); });
  s.running = true;
  return s.transport->port();
}

void Server::Stop() {
  Impl& s = *impl_;
  if (!s.running) return;
  s.running = false;
  s.transport->BeginShutdown();
  // Real time on purpose (no injected MonotonicClock): the grace is for real connections to
  // finish, measured the way asio's timers measure theirs.
  const auto deadline = std::chrono::steady_clock::now() + kShutdownGrace;
  while (s.transport->OpenConnections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& context : s.contexts) context->stop();
  for (auto& thread : s.threads) thread.join();
  s.threads.clear();
  // No request runs any more; answers still waiting for the disk are released (into the stopped
  // contexts, which drop them) while the router they log through still exists.
  std::promise<void> durable;
  s.committer->WhenDurable([&durable](bool) { durable.set_value(); });
  durable.get_future().wait();
  s.transport.reset();
  s.router.reset();
  s.committer.reset();
  s.emulator.reset();
  s.store.reset();  // closes the database cleanly (WAL checkpoint on last connection)
  s.keep_running.clear();
  s.contexts.clear();
  log::Event(spdlog::level::info, "stopped");
}

}  // namespace smemu
