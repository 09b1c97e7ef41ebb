// Fuzzes headroomd's HTTP API (docs/api.md) through its real route handlers: the request body of
// every POST and PUT endpoint and the query string (or the whole path) of the GET endpoints, with
// every kind of caller, against one daemon per fuzzing process — the same parts Daemon::Start
// assembles (a SqliteStore in a temporary directory under /dev/shm, its Journal, a LiveLoop on
// an AgentsBackend, TokenAuth, EventLog), built lazily on the first input and rebuilt when the
// inputs have grown its state past a bound. No sockets: Router::Find picks the route and its
// handler is called with the HttpRequest the HTTP server would build (query decoded as
// libmicrohttpd does; bodies over the server's 1 MiB limit never reach a handler).
//
// Input layout: byte 0 picks what is sent, the rest is the body (or query string, or path):
//   bits 0-3  the endpoint (kEndpoints below; 13: GET PATH?QUERY, 14: POST PATH\nBODY or
//             PUT PATH\nBODY when the line starts "PUT ", 15: POST /v1/jobs with
//             CONTENT-TYPE\nBODY)
//   bits 4-6  the caller (kCallers: admin, users of two tenants, agents of n1 and n2, none, ...)
//   bit 7     the path's object: off, the newest job or service and node n1; on, the oldest and
//             node n2 (registered only if an input registers it)
//
// Asserted for every input (a failure aborts, as a crash would):
//  - the handler returns (libFuzzer catches crashes, hangs and leaks);
//  - the status is one the API documents for a client: 200, 201, 400, 401, 403, 404, 409, 413,
//    415, 429 or 503 (never 500), and a success is the route's own (201 for submissions and
//    tokens, 200 otherwise);
//  - the body is valid JSON (UTF-8) — /metrics excepted, whose text must parse with the strict
//    Prometheus parser — and is the route's success shape (its documented members with their
//    types) or exactly {"error": {"code", "message"}} with the code of the status;
//  - an error message is non-empty, at most 1 KiB and holds no control byte.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/check.h"
#include "control/agents_backend.h"
#include "control/api_routes.h"
#include "control/clock.h"
#include "control/daemon_state.h"
#include "control/event_log.h"
#include "control/http_server.h"
#include "control/journal.h"
#include "control/live_loop.h"
#include "control/logging.h"
#include "control/metrics.h"
#include "control/sqlite_store.h"
#include "control/token_auth.h"
#include "engine/presets.h"
#include "model/prometheus_text.h"

namespace {

using headroom::control::Json;
namespace hc = headroom::control;

constexpr size_t kMaxBodyBytes = 1 << 20;  // HttpServerOptions::max_body_bytes.
constexpr size_t kMaxMessageBytes = 1024;
// The daemon is rebuilt when inputs have grown it past these (each request stays cheap).
constexpr size_t kMaxJobs = 2000;
constexpr size_t kMaxServices = 500;
constexpr size_t kMaxNodes = 64;
constexpr size_t kMaxTokens = 5000;
constexpr size_t kMaxInputsPerWorld = 50'000;

// Callers, by bits 4-6 of the first byte: the Authorization header each sends.
constexpr const char* kAdminToken = "fuzz-admin-token";
constexpr const char* kCallers[8] = {"Bearer fuzz-admin-token",    "Bearer fuzz-user-a-token",
                                     "Bearer fuzz-agent-n1-token", "Bearer fuzz-user-b-token",
                                     "Bearer fuzz-agent-n2-token", nullptr,  // No header.
                                     "Bearer not-a-known-token",   "Basic ZnV6ejpmdXp6"};

// The routes' success shapes, in this namespace.
#include "api_fuzz_shapes.h"

bool HasKind(const Json& value, Kind kind) {
  switch (kind) {
    case Kind::kUnsigned:
      return value.is_number_unsigned();
    case Kind::kNumber:
      return value.is_number();
    case Kind::kString:
      return value.is_string();
    case Kind::kArray:
      return value.is_array();
    case Kind::kObject:
      return value.is_object();
    case Kind::kBoolean:
      return value.is_boolean();
  }
  return false;
}

[[noreturn]] void Violation(const std::string& what, const hc::HttpRequest& request,
                            const hc::HttpResponse& response) {
  std::fprintf(stderr, "api_fuzz: %s\n  request: %s %s (%zu body bytes)\n  response: %d %s\n",
               what.c_str(), request.method.c_str(), request.path.c_str(), request.body.size(),
               response.status, response.body.substr(0, 2000).c_str());
  std::abort();
}

const char* ErrorCodeOf(int status) {
  switch (status) {
    case 400:
      return "invalid_argument";
    case 401:
      return "unauthenticated";
    case 403:
      return "permission_denied";
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 413:
      return "payload_too_large";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "resource_exhausted";
    case 503:
      return "unavailable";
    default:
      return nullptr;  // Not a status a client may get.
  }
}

void CheckResponse(const Shape& shape, const hc::HttpRequest& request,
                   const hc::HttpResponse& response) {
  const bool success = response.status == 200 || response.status == 201;
  if (!success && ErrorCodeOf(response.status) == nullptr) {
    Violation("undocumented status", request, response);
  }
  if (success && response.status != shape.status) {
    Violation("success with another status than the route's", request, response);
  }
  if (success && shape.members.empty()) {  // /metrics: Prometheus text.
    auto samples = headroom::model::ParsePrometheusText(response.body);
    if (!samples)
      Violation("/metrics does not parse: " + samples.error().message, request, response);
    return;
  }
  if (!Json::accept(response.body)) Violation("the body is not JSON", request, response);
  const Json body = Json::parse(response.body);
  if (!body.is_object()) Violation("the body is not an object", request, response);
  if (success) {
    for (const Member& member : shape.members) {
      auto it = body.find(member.name);
      if (it == body.end() || !HasKind(*it, member.kind)) {
        Violation(std::string("success without a valid '") + member.name + "'", request, response);
      }
    }
    return;
  }
  auto error = body.find("error");
  if (body.size() != 1 || error == body.end() || !error->is_object() || error->size() != 2) {
    Violation("an error body is not {\"error\": {code, message}}", request, response);
  }
  auto code = error->find("code");
  auto message = error->find("message");
  if (code == error->end() || message == error->end() || !code->is_string() ||
      !message->is_string() || *code != ErrorCodeOf(response.status)) {
    Violation("the error's code or message is wrong", request, response);
  }
  const std::string& text = message->get_ref<const std::string&>();
  if (text.empty() || text.size() > kMaxMessageBytes) {
    Violation("an error message is empty or longer than 1 KiB", request, response);
  }
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      Violation("an error message holds a control byte", request, response);
    }
  }
}

// %XX decoding as libmicrohttpd's MHD_http_unescape (malformed escapes stay as they are); the
// result is cut at a NUL, since the server hands values on as C strings.
std::string Unescape(std::string_view text, bool plus_is_space) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else if (plus_is_space && text[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(text[i]);
    }
  }
  return out.substr(0, out.find('\0'));
}

// The query string as the server's request.params: '&'-separated, the first of a repeated key
// kept.
std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> params;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t equals = pair.find('=');
    params.emplace(Unescape(pair.substr(0, equals), true),
                   equals == std::string_view::npos ? "" : Unescape(pair.substr(equals + 1), true));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return params;
}

// A header value as it can arrive: no CR, LF or NUL.
std::string HeaderValue(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != '\r' && c != '\n' && c != '\0') out.push_back(c);
  }
  return out;
}

// One daemon, as Daemon::Start assembles it on the agents backend.
struct World {
  std::string dir;
  std::unique_ptr<hc::SqliteStore> store;
  std::unique_ptr<hc::Journal> journal;
  hc::DaemonState state;
  hc::TokenAuth tokens;
  std::unique_ptr<hc::EventLog> events;
  hc::Histogram cycle_seconds{{0.0001, 0.001, 0.01, 0.1, 1}};
  std::unique_ptr<hc::Clock> clock;
  std::unique_ptr<hc::AgentsBackend> agents;
  std::unique_ptr<hc::LiveLoop> loop;
  std::unique_ptr<hc::ApiContext> context;
  hc::Router router;
  std::vector<const hc::Router::Route*> routes;  // Of Shapes(), in order.
  size_t inputs = 0;

  World() = default;
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  ~World() {
    if (events) events->Close();
    if (loop) loop->Stop();
    if (journal) journal->Stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  bool Overgrown() {
    std::lock_guard lock(state.mu);
    return inputs > kMaxInputsPerWorld || state.jobs.size() > kMaxJobs ||
           state.services.size() > kMaxServices || state.nodes.size() > kMaxNodes ||
           tokens.size() > kMaxTokens;
  }
};

// A directory for the store, in memory where /dev/shm is writable (the store fsyncs every
// commit). Named after this process, so that the directories a crashed or killed run left (it
// removes its own at exit) are found and removed by the next run.
std::string TemporaryDirectory() {
  const std::filesystem::path parent =
      std::filesystem::is_directory("/dev/shm") && ::access("/dev/shm", W_OK) == 0
          ? std::filesystem::path("/dev/shm")
          : std::filesystem::temp_directory_path();
  constexpr std::string_view kPrefix = "headroom-api-fuzz-";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(parent, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kPrefix)) continue;
    const long pid = std::strtol(name.c_str() + kPrefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove_all(entry.path(), error);
    }
  }
  std::string pattern =
      (parent / fmt::format("{}{}-XXXXXX", kPrefix, static_cast<long>(::getpid()))).string();
  HR_CHECK(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

// Runs `request` on its route to the end (a parked long-poll is run once more, as the server
// does when its wait ends) and checks the response.
hc::HttpResponse Send(World& world, hc::HttpRequest& request) {
  hc::HttpResponse response;
  const hc::Router::Route* route = world.router.Find(request.method, request.path, request.matches);
  if (route == nullptr) return response;  // The server answers 404 itself.
  size_t shape = 0;
  while (shape < world.routes.size() && world.routes[shape] != route) ++shape;
  HR_CHECK(shape < world.routes.size());  // Every route has a shape.
  route->handler(request, response);
  if (response.long_poll) {
    request.long_poll_final = true;
    response = hc::HttpResponse{};
    route->handler(request, response);
    if (response.long_poll) Violation("a final long-poll run parked again", request, response);
  }
  CheckResponse(Shapes()[shape], request, response);
  return response;
}

hc::HttpRequest Request(std::string method, std::string path, const char* authorization,
                        std::string body) {
  hc::HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  if (authorization != nullptr) request.headers["authorization"] = authorization;
  if (!request.body.empty()) request.headers["content-type"] = "application/json";
  return request;
}

// The daemon's starting state, made through the API: node n1 registered with 8 GPUs, a job and
// a service of two replicas for tenant team-a.
void Populate(World& world) {
  std::string devices;
  for (int i = 0; i < 8; ++i) {
    devices +=
        fmt::format(R"({}{{"index": {}, "uuid": "GPU-{}", "model": "H100", "memory_mib": 81559}})",
                    i == 0 ? "" : ", ", i, i);
  }
  const std::string registration = fmt::format(
      R"({{"node": "n1", "cpu_milli": 64000, "memory_mib": 524288, "ready": true, "devices": [{}], "address": "10.0.0.1"}})",
      devices);
  const std::pair<const char*, std::string> setup[] = {
      {"/v1/agents/register", registration},
      {"/v1/jobs",
       R"({"apiVersion": "headroom/v1", "kind": "Job", "metadata": {"name": "train"}, "spec": {"tenant": "team-a", "timeLimit": "2h", "command": ["sleep", "1"], "devices": {"requests": [{"name": "gpus", "deviceClassName": "gpu", "count": 2}]}}})"},
      {"/v1/jobs",
       R"({"apiVersion": "headroom/v1", "kind": "Service", "metadata": {"name": "serve"}, "spec": {"tenant": "team-a", "replicas": 2, "timeLimit": "1d", "command": ["serve"], "devices": {"requests": [{"name": "gpus", "deviceClassName": "gpu", "count": 1}]}}})"},
  };
  for (const auto& [path, body] : setup) {
    hc::HttpRequest request = Request("POST", path, kCallers[0], body);
    const hc::HttpResponse response = Send(world, request);
    if (response.status != 200 && response.status != 201) {
      Violation("the daemon's starting state was refused", request, response);
    }
  }
}

std::unique_ptr<World> MakeWorld() {
  auto world = std::make_unique<World>();
  world->dir = TemporaryDirectory();
  auto store = hc::SqliteStore::Open(world->dir + "/headroom.db");
  HR_CHECK(store.has_value());
  world->store = std::move(*store);
  world->journal = std::make_unique<hc::Journal>(*world->store);
  const std::pair<const char*, hc::TokenRecord> tokens[] = {
      {kAdminToken, {.role = hc::Role::kAdmin}},
      {"fuzz-user-a-token", {.role = hc::Role::kUser, .tenant = "team-a"}},
      {"fuzz-user-b-token", {.role = hc::Role::kUser, .tenant = "team-b"}},
      {"fuzz-agent-n1-token", {.role = hc::Role::kAgent, .node = "n1"}},
      {"fuzz-agent-n2-token", {.role = hc::Role::kAgent, .node = "n2"}},
  };
  for (auto [token, record] : tokens) {
    record.hash_hex = hc::Sha256Hex(token);
    world->tokens.Add(record);
  }
  world->events = std::make_unique<hc::EventLog>(1, 10'000);
  world->clock = std::make_unique<hc::SystemClock>(1.0, 0);
  world->agents = std::make_unique<hc::AgentsBackend>(world->state, *world->events, *world->clock,
                                                      hc::AgentsOptions{});
  auto policy = headroom::engine::PresetPolicy("headroom");
  HR_CHECK(policy.has_value());
  world->loop = std::make_unique<hc::LiveLoop>(
      world->state, *world->journal, *world->events, *world->agents, *world->clock,
      world->cycle_seconds,
      hc::LoopOptions{.policy = *policy, .min_iteration_interval = std::chrono::microseconds(0)});
  world->loop->Start();
  world->context = std::make_unique<hc::ApiContext>(
      hc::ApiContext{world->state, *world->journal, *world->loop, world->tokens, *world->events,
                     world->cycle_seconds, *world->clock, world->agents.get()});
  hc::RegisterJobRoutes(world->router, *world->context);
  hc::RegisterServiceRoutes(world->router, *world->context);
  hc::RegisterNodeRoutes(world->router, *world->context);
  hc::RegisterAgentRoutes(world->router, *world->context);
  hc::RegisterMetricsRoutes(world->router, *world->context);
  hc::RegisterPolicyRoutes(world->router, *world->context);
  for (const Shape& shape : Shapes()) {
    std::vector<std::string> matches;
    const hc::Router::Route* route = world->router.Find(shape.method, shape.example, matches);
    HR_CHECK(route != nullptr);
    world->routes.push_back(route);
  }
  Populate(*world);
  return world;
}

// The id of the newest (or oldest) job or service, 1 when there is none.
template <typename Map>
std::string IdIn(World& world, const Map& map, bool oldest) {
  std::lock_guard lock(world.state.mu);
  if (map.empty()) return "1";
  return std::to_string(oldest ? map.begin()->first : std::prev(map.end())->first);
}

// Splits "PATH?QUERY" into the request's decoded path and params.
void SetTarget(hc::HttpRequest& request, std::string_view target) {
  const size_t question = target.find('?');
  request.path = Unescape(target.substr(0, question), false);
  if (question != std::string_view::npos) request.params = ParseQuery(target.substr(question + 1));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Handlers log refusals; the fuzzer needs none.
  headroom::control::SetLogSink([](headroom::control::LogLevel, std::string_view) {},
                                headroom::control::LogLevel::kError);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size - 1 > kMaxBodyBytes) return 0;  // The server answers 413 itself.
  static std::unique_ptr<World> world;
  if (world == nullptr || world->Overgrown()) {
    world.reset();
    world = MakeWorld();
  }
  ++world->inputs;
  const uint8_t selector = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const char* caller = kCallers[(selector >> 4) & 7];
  const bool other = (selector & 0x80) != 0;
  const std::string node = other ? "n2" : "n1";
  hc::HttpRequest request = Request("POST", "", caller, std::string(rest));
  request.headers["content-type"] = "application/json";
  switch (selector & 0x0f) {
    case 0:
      request.path = "/v1/jobs";
      break;
    case 1:
      request.path = "/v1/jobs";
      request.headers["content-type"] = "application/yaml";
      break;
    case 2:
      request.path = "/v1/jobs/" + IdIn(*world, world->state.jobs, other) + "/cancel";
      break;
    case 3:
      request.path = "/v1/services/" + IdIn(*world, world->state.services, other) + "/cancel";
      break;
    case 4:
      request.path = "/v1/services/" + IdIn(*world, world->state.services, other) + "/scale";
      break;
    case 5:
      request.path = "/v1/tokens";
      break;
    case 6:
      request.path = "/v1/nodes/" + node + "/drain";
      break;
    case 7:
      request.path = "/v1/nodes/" + node + "/undrain";
      break;
    case 8:
      request.path = "/v1/agents/register";
      break;
    case 9:
      request.path = "/v1/agents/" + node + "/heartbeat";
      break;
    case 10:
    case 11:
    case 12: {
      static constexpr const char* kPaths[] = {"/v1/jobs", "/v1/series", "/v1/events"};
      request = Request("GET", kPaths[(selector & 0x0f) - 10], caller, "");
      request.params = ParseQuery(rest);
      break;
    }
    case 13:
      request = Request("GET", "", caller, "");
      SetTarget(request, rest);
      break;
    case 14: {
      const size_t newline = rest.find('\n');
      std::string_view target = rest.substr(0, newline);
      if (target.starts_with("PUT ")) {
        request.method = "PUT";
        target.remove_prefix(4);
      }
      SetTarget(request, target);
      request.body = newline == std::string_view::npos ? "" : std::string(rest.substr(newline + 1));
      break;
    }
    default: {
      const size_t newline = rest.find('\n');
      request.path = "/v1/jobs";
      request.headers["content-type"] = HeaderValue(rest.substr(0, newline));
      request.body = newline == std::string_view::npos ? "" : std::string(rest.substr(newline + 1));
      break;
    }
  }
  Send(*world, request);
  return 0;
}
