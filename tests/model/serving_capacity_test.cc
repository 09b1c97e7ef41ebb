// The roofline capacity of an inference replica, checked against numbers worked by hand from
// the datasheets and config.json values the model cites.
#include "model/serving_capacity.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

TEST(ServingCapacity, Llama2_70bOnFourH100sByHand) {
  auto model = FindServedModel("llama-2-70b");
  ASSERT_TRUE(model.has_value()) << model.error().message;
  EXPECT_DOUBLE_EQ(model->kv_bytes_per_token, 2.0 * 80 * 8 * 128 * 2);  // 327,680 B.
  const DeviceSpeed* h100 = FindDeviceSpeed("H100");
  ASSERT_NE(h100, nullptr);
  auto capacity = EstimateServingCapacity(*model, *h100, 4);
  ASSERT_TRUE(capacity.has_value()) << capacity.error().message;
  // 4 · 989 TFLOPS · 0.5 MFU over 2 · 69e9 FLOPs per token.
  EXPECT_NEAR(capacity->prefill_tokens_per_s, 4 * 989e12 * 0.5 / (2 * 69e9), 1e-6);
  // 138 GB of weights read at 4 · 3.35 TB/s · 0.6 MBU: 17.2 ms a step.
  EXPECT_NEAR(capacity->weight_read_s, 138e9 / (4 * 3.35e12 * 0.6), 1e-12);
  EXPECT_NEAR(capacity->weight_read_s, 0.01716, 1e-5);
  // 288 GB usable (0.9 of 320) less the weights, in 327,680-byte tokens.
  EXPECT_EQ(capacity->kv_capacity_tokens, 457763);
  EXPECT_NEAR(capacity->DecodeStepS(100'000) - capacity->DecodeStepS(0),
              100'000 * 327'680.0 / (4 * 3.35e12 * 0.6), 1e-12);
  EXPECT_EQ(capacity->PrefillUs(14'333), 999'976);  // 14,333 tokens in just under a second.
}

TEST(ServingCapacity, MoreDevicesServeFasterAndHoldMore) {
  auto model = FindServedModel("llama-3-70b");
  ASSERT_TRUE(model.has_value());
  const DeviceSpeed* h100 = FindDeviceSpeed("H100");
  auto four = EstimateServingCapacity(*model, *h100, 4);
  auto eight = EstimateServingCapacity(*model, *h100, 8);
  ASSERT_TRUE(four.has_value() && eight.has_value());
  EXPECT_DOUBLE_EQ(eight->prefill_tokens_per_s, 2 * four->prefill_tokens_per_s);
  EXPECT_DOUBLE_EQ(eight->weight_read_s, four->weight_read_s / 2);
  EXPECT_GT(eight->kv_capacity_tokens, 2 * four->kv_capacity_tokens);  // Weights stored once.
  // The H200's bandwidth shortens the memory-bound step; its compute is the H100's.
  auto h200 = EstimateServingCapacity(*model, *FindDeviceSpeed("H200"), 4);
  ASSERT_TRUE(h200.has_value());
  EXPECT_LT(h200->weight_read_s, four->weight_read_s);
  EXPECT_DOUBLE_EQ(h200->prefill_tokens_per_s, four->prefill_tokens_per_s);
}

TEST(ServingCapacity, RefusesWhatDoesNotFitOrIsNotKnown) {
  auto model = FindServedModel("llama-2-70b");
  ASSERT_TRUE(model.has_value());
  auto one = EstimateServingCapacity(*model, *FindDeviceSpeed("H100"), 1);
  ASSERT_FALSE(one.has_value());
  EXPECT_NE(one.error().message.find("give a replica more devices"), std::string::npos)
      << one.error().message;
  EXPECT_FALSE(EstimateServingCapacity(*model, *FindDeviceSpeed("H100"), 0).has_value());
  auto zero_mfu = EstimateServingCapacity(*model, *FindDeviceSpeed("H100"), 4, {.prefill_mfu = 0});
  EXPECT_FALSE(zero_mfu.has_value());
  auto unknown = FindServedModel("gpt-5");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("llama-2-70b"), std::string::npos);
  EXPECT_EQ(FindDeviceSpeed("V100"), nullptr);
  EXPECT_EQ(FindDeviceSpeed("h100"), nullptr);  // Case matters, as in cluster YAML.
}

TEST(ServingCapacity, SmallModelsFitOnOneDevice) {
  auto model = FindServedModel("llama-3-8b");
  ASSERT_TRUE(model.has_value());
  auto capacity = EstimateServingCapacity(*model, *FindDeviceSpeed("A100"), 1);
  ASSERT_TRUE(capacity.has_value()) << capacity.error().message;
  // (72 GB - 16.06 GB) / 131,072 B per token.
  EXPECT_EQ(capacity->kv_capacity_tokens, static_cast<int64_t>((72e9 - 16.06e9) / 131072));
}

// The Azure code trace's mean request (2,048 prompt tokens, 28 generated) is prefill-bound on
// Llama-2-70B; a chat-like one with long outputs is decode-bound.
TEST(ServingCapacity, SustainedRateIsTheLowerOfPrefillAndDecode) {
  const ServingCapacity capacity{.prefill_tokens_per_s = 1000,
                                 .kv_capacity_tokens = 10'000,
                                 .weight_read_s = 0.01,
                                 .kv_read_s_per_token = 0};
  // Prefill: 1000 / 2000 = 0.5/s. Decode: 10,000 / 2,010 sequences resident 2 + 0.1 s each.
  EXPECT_DOUBLE_EQ(capacity.SustainedRequestsPerS(2000, 10), 0.5);
  // Prefill: 10/s. Decode: 10,000 / 2,100 sequences, each 0.1 + 20 s: 0.237/s.
  EXPECT_NEAR(capacity.SustainedRequestsPerS(100, 2000), 10'000.0 / 2'100 / 20.1, 1e-12);
}

}  // namespace
}  // namespace headroom::model
