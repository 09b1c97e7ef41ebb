#include "model/serving_capacity.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace headroom::model {
namespace {

// NVIDIA's datasheets (A100: "NVIDIA A100 Tensor Core GPU" datasheet, SXM4 columns; H100 and
// H200: the H100 and H200 datasheets, SXM columns), dense BF16 tensor throughput.
constexpr std::array kDeviceSpeeds = {
    DeviceSpeed{"A100", 80, 2.039, 312},
    DeviceSpeed{"A100-40GB", 40, 1.555, 312},
    DeviceSpeed{"H100", 80, 3.35, 989},
    DeviceSpeed{"H200", 141, 4.8, 989},
};

// From each model's published config.json: parameters, and KV bytes per token
// = 2 (K and V) · num_hidden_layers · num_key_value_heads · head_dim · 2 bytes (BF16).
struct KnownModel {
  std::string_view name;
  double params_b;
  int layers;
  int kv_heads;
  int head_dim;
};
constexpr std::array kKnownModels = {
    KnownModel{"llama-2-7b", 6.74, 32, 32, 128}, KnownModel{"llama-2-13b", 13.0, 40, 40, 128},
    KnownModel{"llama-2-70b", 69.0, 80, 8, 128}, KnownModel{"llama-3-8b", 8.03, 32, 8, 128},
    KnownModel{"llama-3-70b", 70.6, 80, 8, 128},
};

// The sequence a replica must hold at least, so that a configuration which fits no realistic
// request is refused when it is read, not discovered as a stuck queue.
constexpr int64_t kMinSequenceTokens = 4096;

}  // namespace

double ServingCapacity::SustainedRequestsPerS(double mean_input_tokens,
                                              double mean_output_tokens) const {
  const double input = std::max(mean_input_tokens, 1.0);
  const double output = std::max(mean_output_tokens, 0.0);
  const double prefill_per_s = prefill_tokens_per_s / input;
  const double full = static_cast<double>(kv_capacity_tokens);
  const double sequences = std::max(full / (input + output), 1.0);
  const double resident_s = input / prefill_tokens_per_s + output * DecodeStepS(kv_capacity_tokens);
  return std::min(prefill_per_s, sequences / resident_s);
}

const DeviceSpeed* FindDeviceSpeed(std::string_view model) {
  for (const DeviceSpeed& speed : kDeviceSpeeds) {
    if (speed.model == model) return &speed;
  }
  return nullptr;
}

Result<ServedModel> FindServedModel(std::string_view name) {
  std::string known;
  for (const KnownModel& model : kKnownModels) {
    if (model.name == name) {
      constexpr double kBytesPerValue = 2;
      return ServedModel{std::string(model.name), model.params_b, kBytesPerValue,
                         2.0 * model.layers * model.kv_heads * model.head_dim * kBytesPerValue};
    }
    known += known.empty() ? "" : ", ";
    known += model.name;
  }
  return MakeError(ErrorCode::kNotFound, "unknown model \"{}\"; known: {}", name, known);
}

Result<ServingCapacity> EstimateServingCapacity(const ServedModel& model, const DeviceSpeed& device,
                                                uint32_t devices,
                                                const ServingEfficiency& efficiency) {
  const auto positive = [](double value) { return std::isfinite(value) && value > 0; };
  if (devices == 0) return MakeError(ErrorCode::kInvalidArgument, "a replica needs a device");
  if (!positive(model.params_b) || !positive(model.bytes_per_param) ||
      !positive(model.kv_bytes_per_token)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "model {}: params, bytes per parameter and KV bytes per token must be "
                     "positive",
                     model.name);
  }
  if (!positive(efficiency.prefill_mfu) || efficiency.prefill_mfu > 1 ||
      !positive(efficiency.decode_mbu) || efficiency.decode_mbu > 1 ||
      !positive(efficiency.memory_fraction) || efficiency.memory_fraction > 1) {
    return MakeError(ErrorCode::kInvalidArgument, "serving efficiencies must be in (0, 1]");
  }
  const double weight_bytes = model.params_b * 1e9 * model.bytes_per_param;
  const double memory_bytes = devices * device.hbm_gb * 1e9 * efficiency.memory_fraction;
  const double kv_bytes = memory_bytes - weight_bytes;
  const auto kv_tokens = static_cast<int64_t>(std::floor(kv_bytes / model.kv_bytes_per_token));
  if (kv_bytes <= 0 || kv_tokens < kMinSequenceTokens) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{} ({:.0f} GB of weights) does not fit on {} {} with room for a {}-token "
                     "sequence; give a replica more devices",
                     model.name, weight_bytes / 1e9, devices, device.model, kMinSequenceTokens);
  }
  const double bandwidth_bytes_per_s = devices * device.hbm_tb_per_s * 1e12 * efficiency.decode_mbu;
  const double flops = devices * device.bf16_tflops * 1e12 * efficiency.prefill_mfu;
  ServingCapacity capacity;
  capacity.prefill_tokens_per_s = flops / (2 * model.params_b * 1e9);
  capacity.kv_capacity_tokens = kv_tokens;
  capacity.weight_read_s = weight_bytes / bandwidth_bytes_per_s;
  capacity.kv_read_s_per_token = model.kv_bytes_per_token / bandwidth_bytes_per_s;
  return capacity;
}

}  // namespace headroom::model
