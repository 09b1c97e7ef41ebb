// Exporter readings: DCGM's and AMD's names read into one device sample with their units
// converted, the preferred source of a field winning whatever the order, the identity labels
// kept, and one line-numbered error for each kind of bad sample.
#include "model/exporter_readings.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

constexpr const char* kDcgmText =
    "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
    "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-b\",device=\"nvidia1\",modelName=\"NVIDIA H100 80GB "
    "HBM3\",Hostname=\"node1\"} 43\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",Hostname=\"node1\"} 40\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\"} 312.5\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"} 93\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",GPU_I_ID=\"1\"} 5\n"
    "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-b\"} 79\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-b\"} NaN\n"
    "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 1024\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 40\n"
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\"} 0.25\n"
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"1\"} 2\n"
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS{gpu=\"1\"} 7\n"
    "DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"1\"} 1\n"
    "DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"0\"} 0\n"
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu=\"1\"} 10\n"
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL{gpu=\"1\"} 3\n"
    "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL{gpu=\"1\"} 2\n"
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL{gpu=\"1\"} 1\n"
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL{gpu=\"1\",link=\"dup\"} 100\n";

TEST(ExporterReadings, ReadsDcgmFieldsByGpuLabel) {
  auto devices = ParseExporterText(kDcgmText);
  ASSERT_TRUE(devices.has_value()) << devices.error().message;
  ASSERT_EQ(devices->size(), 2u);
  const ExporterDevice& gpu0 = (*devices)[0];
  EXPECT_EQ(gpu0.vendor, ExporterVendor::kNvidia);
  EXPECT_EQ(gpu0.uuid, "GPU-a");
  EXPECT_EQ(gpu0.model, "");
  EXPECT_EQ(gpu0.hostname, "node1");
  EXPECT_EQ(gpu0.reading.index, 0);
  EXPECT_EQ(gpu0.reading.temp_c, 40.0);
  EXPECT_EQ(gpu0.reading.power_w, 312.5);
  EXPECT_EQ(gpu0.reading.util, 0.93);  // The first sample per (name, gpu) wins over the MIG one.
  EXPECT_FALSE(gpu0.reading.xid_errors.has_value());
  EXPECT_EQ(gpu0.reading.row_remap_failure, false);
  EXPECT_FALSE(gpu0.reading.nvlink_errors.has_value());
  const ExporterDevice& gpu1 = (*devices)[1];
  EXPECT_EQ(gpu1.uuid, "GPU-b");
  EXPECT_EQ(gpu1.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu1.reading.temp_c, 43.0);
  EXPECT_FALSE(gpu1.reading.power_w.has_value());  // NaN is a blank reading.
  EXPECT_EQ(gpu1.reading.util, 0.25);  // GR_ENGINE_ACTIVE wins over GPU_UTIL, though later.
  EXPECT_EQ(gpu1.reading.xid_errors, 79);
  EXPECT_EQ(gpu1.reading.ecc_uncorrectable, 2);
  EXPECT_EQ(gpu1.reading.remapped_rows, 7);
  EXPECT_EQ(gpu1.reading.row_remap_failure, true);
  EXPECT_EQ(gpu1.reading.nvlink_errors, 16);  // The four kinds summed, the repeat ignored.
}

TEST(ExporterReadings, ReadsAmdFieldsByGpuIdWithOrWithoutPrefix) {
  auto devices = ParseExporterText(
      "# TYPE gpu_edge_temperature gauge\n"
      "gpu_edge_temperature{gpu_id=\"0\",gpu_uuid=\"ccff74a1\",card_series=\"AMD Instinct MI300X "
      "OAM\",card_model=\"102-G30211-0C\",hostname=\"tw038\"} 44\n"
      "gpu_junction_temperature{gpu_id=\"0\"} 51\n"
      "gpu_package_power{gpu_id=\"0\"} 600\n"
      "gpu_power_usage{gpu_id=\"0\"} 612\n"
      "gpu_gfx_activity{gpu_id=\"0\"} 87\n"
      "gpu_ecc_uncorrect_total{gpu_id=\"0\"} 1\n"
      "amd_gpu_average_package_power{gpu_id=\"2\",card_model=\"102-G30211-0C\"} 300\n"
      "amd_gpu_gfx_activity{gpu_id=\"2\"} 10\n"
      "gpu_umc_activity{gpu_id=\"2\"} 999\n");
  ASSERT_TRUE(devices.has_value()) << devices.error().message;
  ASSERT_EQ(devices->size(), 2u);
  const ExporterDevice& gpu0 = (*devices)[0];
  EXPECT_EQ(gpu0.vendor, ExporterVendor::kAmd);
  EXPECT_EQ(gpu0.uuid, "ccff74a1");
  EXPECT_EQ(gpu0.model, "AMD Instinct MI300X OAM");  // card_series before card_model.
  EXPECT_EQ(gpu0.hostname, "tw038");
  EXPECT_EQ(gpu0.reading.temp_c, 51.0);    // Junction before edge.
  EXPECT_EQ(gpu0.reading.power_w, 612.0);  // gpu_power_usage before package power.
  EXPECT_EQ(gpu0.reading.util, 0.87);
  EXPECT_EQ(gpu0.reading.ecc_uncorrectable, 1);
  EXPECT_FALSE(gpu0.reading.xid_errors.has_value());  // AMD has no XIDs.
  const ExporterDevice& gpu2 = (*devices)[1];
  EXPECT_EQ(gpu2.reading.index, 2);
  EXPECT_EQ(gpu2.model, "102-G30211-0C");
  EXPECT_EQ(gpu2.reading.power_w, 300.0);
  EXPECT_EQ(gpu2.reading.util, 0.10);
}

TEST(ExporterReadings, RejectsBadLabelsAndValuesByLine) {
  const auto error = [](const char* text) { return ParseExporterText(text).error().message; };
  EXPECT_EQ(error("x 1\nDCGM_FI_DEV_GPU_TEMP{UUID=\"a\"} 40\n"),
            "line 2: DCGM_FI_DEV_GPU_TEMP: expected a 'gpu' label holding the device index, got "
            "none");
  EXPECT_EQ(error("gpu_gfx_activity{gpu=\"0\"} 4\n"),
            "line 1: gpu_gfx_activity: expected a 'gpu_id' label holding the device index, got "
            "none");
  EXPECT_EQ(error("DCGM_FI_DEV_GPU_TEMP{gpu=\"-1\"} 40\n"),
            "line 1: DCGM_FI_DEV_GPU_TEMP: expected label 'gpu' to hold a device index 0..1023, "
            "got \"-1\"");
  EXPECT_FALSE(ParseExporterText("DCGM_FI_DEV_GPU_TEMP{gpu=\"01\"} 40\n").has_value());
  EXPECT_FALSE(ParseExporterText("DCGM_FI_DEV_GPU_TEMP{gpu=\"1024\"} 40\n").has_value());
  EXPECT_EQ(error("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 140\n"),
            "line 1: DCGM_FI_DEV_GPU_UTIL: expected a percentage in 0..100, got 140");
  EXPECT_EQ(error("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\"} 1.5\n"),
            "line 1: DCGM_FI_PROF_GR_ENGINE_ACTIVE: expected a ratio in 0..1, got 1.5");
  EXPECT_EQ(error("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 1.5\n"),
            "line 1: DCGM_FI_DEV_XID_ERRORS: expected a non-negative integer XID, got 1.5");
  EXPECT_EQ(error("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"0\"} -1\n"),
            "line 1: DCGM_FI_DEV_ECC_DBE_VOL_TOTAL: expected a non-negative integer count, got -1");
  EXPECT_EQ(error("DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"0\"} 2\n"),
            "line 1: DCGM_FI_DEV_ROW_REMAP_FAILURE: expected 0 or 1, got 2");
  EXPECT_EQ(error("gpu_power_usage{gpu_id=\"0\"} +Inf\n"),
            "line 1: gpu_power_usage: expected a finite number, got inf");
  EXPECT_EQ(error("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40 x\n").rfind("line 1: ", 0), 0u);
}

TEST(ExporterReadings, JsonNamesTheVendorAndIdentity) {
  auto devices = ParseExporterText("DCGM_FI_DEV_XID_ERRORS{gpu=\"3\",UUID=\"GPU-c\"} 48\n");
  ASSERT_TRUE(devices.has_value());
  const nlohmann::json json = ExporterDeviceJson(devices->at(0));
  EXPECT_EQ(json["index"], 3);
  EXPECT_EQ(json["vendor"], "nvidia");
  EXPECT_EQ(json["uuid"], "GPU-c");
  EXPECT_EQ(json["xid_errors"], 48);
  EXPECT_TRUE(json["temp_c"].is_null());
  EXPECT_FALSE(json.contains("job"));
}

}  // namespace
}  // namespace headroom::model
