// The API fuzz target's table of what each route answers on success: its status and its
// members with their JSON types (api_fuzz.cc checks every 2xx against it, and every route must
// have an entry). Included once, inside api_fuzz.cc's anonymous namespace.
#pragma once

// What a route answers on success: its status and its members with their JSON types.
enum class Kind { kUnsigned, kNumber, kString, kArray, kObject, kBoolean };
struct Member {
  const char* name;
  Kind kind;
};
struct Shape {
  const char* method;
  const char* example;  // A path the route matches (to find it in the router).
  int status;
  std::vector<Member> members;  // Empty for /metrics (Prometheus text).
};

const std::vector<Member> kJobMembers = {
    {"id", Kind::kUnsigned},     {"name", Kind::kString},       {"kind", Kind::kString},
    {"tenant", Kind::kString},   {"state", Kind::kString},      {"tasks", Kind::kUnsigned},
    {"placement", Kind::kArray}, {"requeues", Kind::kUnsigned}, {"message", Kind::kString}};
const std::vector<Member> kNodeMembers = {{"name", Kind::kString},
                                          {"state", Kind::kString},
                                          {"ready", Kind::kBoolean},
                                          {"devices", Kind::kUnsigned},
                                          {"drain_reason", Kind::kString}};

const std::vector<Shape>& Shapes() {
  static const std::vector<Shape> shapes = {
      {"POST", "/v1/jobs", 201, {{"id", Kind::kUnsigned}, {"state", Kind::kString}}},
      {"POST", "/v1/jobs/1/cancel", 200, kJobMembers},
      {"POST", "/v1/jobs/1/hold", 200, kJobMembers},
      {"POST", "/v1/jobs/1/release", 200, kJobMembers},
      {"POST",
       "/v1/services/1/cancel",
       200,
       {{"id", Kind::kUnsigned},
        {"name", Kind::kString},
        {"state", Kind::kString},
        {"jobs", Kind::kArray}}},
      {"POST",
       "/v1/services/1/scale",
       200,
       {{"id", Kind::kUnsigned},
        {"name", Kind::kString},
        {"replicas", Kind::kUnsigned},
        {"added", Kind::kArray},
        {"cancelled", Kind::kArray}}},
      {"POST",
       "/v1/services/1/load",
       200,
       {{"id", Kind::kUnsigned},
        {"name", Kind::kString},
        {"replicas", Kind::kUnsigned},
        {"autoscaled", Kind::kBoolean},
        {"load", Kind::kObject}}},
      {"POST", "/v1/tokens", 201, {{"token", Kind::kString}, {"role", Kind::kString}}},
      {"POST", "/v1/nodes/n1/drain", 200, kNodeMembers},
      {"POST", "/v1/nodes/n1/undrain", 200, kNodeMembers},
      {"POST",
       "/v1/nodes/n1/devices/0/repair",
       200,
       {{"node", Kind::kString},
        {"index", Kind::kUnsigned},
        {"state", Kind::kString},
        {"evidence", Kind::kString},
        {"history", Kind::kArray}}},
      {"POST", "/v1/health/resume", 200, {{"was_tripped", Kind::kBoolean}}},
      {"POST",
       "/v1/agents/register",
       200,
       {{"heartbeat_interval_s", Kind::kNumber}, {"grace_s", Kind::kNumber}}},
      {"POST", "/v1/agents/n1/heartbeat", 200, {{"tasks", Kind::kArray}}},
      {"GET", "/v1/agents/n1/diagnostics", 200, {{"diagnose", Kind::kArray}}},
      {"POST", "/v1/agents/n1/diagnostics", 200, {{"accepted", Kind::kUnsigned}}},
      {"GET", "/v1/jobs", 200, {{"jobs", Kind::kArray}}},
      {"GET", "/v1/jobs/1", 200, kJobMembers},
      {"GET", "/v1/services", 200, {{"services", Kind::kArray}}},
      {"GET", "/v1/nodes", 200, {{"nodes", Kind::kArray}}},
      {"GET",
       "/v1/cluster",
       200,
       {{"devices", Kind::kUnsigned},
        {"allocated_milli", Kind::kUnsigned},
        {"pending", Kind::kUnsigned},
        {"running", Kind::kUnsigned},
        {"by_tenant", Kind::kObject},
        {"by_class", Kind::kObject},
        {"time", Kind::kNumber}}},
      {"GET", "/v1/floor", 200, {{"racks", Kind::kArray}}},
      {"GET", "/v1/series", 200, {{"points", Kind::kArray}}},
      {"GET", "/v1/events", 200, {{"events", Kind::kArray}, {"next", Kind::kUnsigned}}},
      {"GET", "/metrics", 200, {}},
      {"PUT", "/v1/policy", 200, {{"name", Kind::kString}, {"description", Kind::kString}}},
      {"GET",
       "/v1/policy",
       200,
       {{"name", Kind::kString}, {"description", Kind::kString}, {"text", Kind::kString}}},
  };
  return shapes;
}
