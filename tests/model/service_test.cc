// A service's declaration is checked where it is read: each mistake names the service and the
// field, and a valid one's replica fits its devices.
#include "model/service.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

Service Llama70b() {
  Service service;
  service.name = "chat";
  service.model = *FindServedModel("llama-2-70b");
  return service;
}

std::string Problem(const Service& service) {
  auto valid = ValidateService(service);
  return valid ? "" : valid.error().message;
}

TEST(Service, TheDefaultsServeLlama70bOnFourH100s) {
  EXPECT_EQ(Problem(Llama70b()), "");
  auto capacity = ReplicaCapacity(Llama70b());
  ASSERT_TRUE(capacity.has_value());
  EXPECT_GT(capacity->kv_capacity_tokens, 400'000);
}

TEST(Service, EachMistakeNamesTheServiceAndTheField) {
  Service service = Llama70b();
  service.device_model = "V100";
  EXPECT_EQ(Problem(service), "service chat: device_model: expected A100, A100-40GB, H100 or H200");
  service = Llama70b();
  service.min_replicas = 5;
  service.max_replicas = 4;
  EXPECT_NE(Problem(service).find("service chat: replicas"), std::string::npos);
  service = Llama70b();
  service.target_utilization = 1.5;
  EXPECT_NE(Problem(service).find("target_utilization"), std::string::npos);
  service = Llama70b();
  service.slo.tbt_s = 0.005;  // Below the 17 ms an empty replica needs per step.
  EXPECT_NE(Problem(service).find("slo.tbt: expected at least 0.017 s"), std::string::npos)
      << Problem(service);
  service = Llama70b();
  service.devices_per_replica = 1;
  EXPECT_NE(Problem(service).find("service chat: llama-2-70b (138 GB of weights) does not fit"),
            std::string::npos)
      << Problem(service);
  service = Llama70b();
  service.name.clear();
  EXPECT_EQ(Problem(service), "a service needs a name");
}

}  // namespace
}  // namespace headroom::model
