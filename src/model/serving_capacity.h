// ServingCapacity: what one inference replica can do, from the model it serves and the devices
// it runs on, by the roofline of a decoder-only transformer (the two phases Splitwise, ISCA'24,
// characterises): prefill is compute-bound, 2·params FLOPs per prompt token; a decode step is
// memory-bound, reading every weight once plus the KV cache of every sequence in the batch.
// Tensor parallelism splits both over the replica's devices. A replica holds as many tokens of
// KV cache as its memory leaves after the weights (vLLM's paged attention: capacity is tokens,
// not sequences).
// Promises: pure arithmetic on validated inputs; every number it returns is finite and positive.
// What it leaves out is said where it matters: attention's quadratic prefill term (small below
// 8k tokens against 2·params per token) and tensor-parallel communication (NVLink-local).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"

namespace headroom::model {

// Peak numbers of one device, from the vendors' datasheets (dense BF16, no sparsity).
struct DeviceSpeed {
  std::string_view model;
  double hbm_gb = 0;  // Decimal gigabytes, as datasheets state it.
  double hbm_tb_per_s = 0;
  double bf16_tflops = 0;
};

// The device models a service may name; Find is case-sensitive, as cluster YAML's `model` is.
const DeviceSpeed* FindDeviceSpeed(std::string_view model);

// The model a service serves: its size and the bytes of KV cache each token keeps (2 · layers ·
// kv heads · head dimension · bytes, from the model's config.json).
struct ServedModel {
  std::string name;
  double params_b = 0;  // Billions of parameters.
  double bytes_per_param = 2;
  double kv_bytes_per_token = 0;
};

// Known models by name ("llama-2-70b" ...); an unknown name is kNotFound with the list.
Result<ServedModel> FindServedModel(std::string_view name);

// Achieved shares of the peaks: model FLOPs utilisation in prefill, memory bandwidth
// utilisation in decode, and the share of device memory the server may use (vLLM's
// gpu_memory_utilization default is 0.9). Assumed values, stated in docs/engine.md.
struct ServingEfficiency {
  double prefill_mfu = 0.5;
  double decode_mbu = 0.6;
  double memory_fraction = 0.9;
};

struct ServingCapacity {
  double prefill_tokens_per_s = 0;  // Prompt tokens one replica processes per second.
  int64_t kv_capacity_tokens = 0;   // Tokens of KV cache resident at once.
  double weight_read_s = 0;         // Decode step time at an empty batch.
  double kv_read_s_per_token = 0;   // Added to a decode step per resident token.

  // A decode step (one token for every sequence in the batch) with `resident_tokens` of KV.
  double DecodeStepS(int64_t resident_tokens) const {
    return weight_read_s + kv_read_s_per_token * static_cast<double>(resident_tokens);
  }
  TimeUs PrefillUs(uint32_t input_tokens) const {
    return SecondsToUs(static_cast<double>(input_tokens) / prefill_tokens_per_s);
  }
  // Requests a second one replica sustains, saturated with requests of this mean shape: the
  // lower of its prefill rate (one prompt at a time) and its decode rate with the KV cache full
  // (as many sequences as fit, each resident for its prefill and its decode steps).
  double SustainedRequestsPerS(double mean_input_tokens, double mean_output_tokens) const;
};

// The capacity of a replica of `model` over `devices` devices of `device`; an error where the
// weights do not fit with room for one 4k-token sequence, or an input is not positive.
Result<ServingCapacity> EstimateServingCapacity(const ServedModel& model, const DeviceSpeed& device,
                                                uint32_t devices,
                                                const ServingEfficiency& efficiency = {});

}  // namespace headroom::model
