#include "engine/facility_ledger.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "model/device_power.h"
#include "model/job.h"

namespace headroom::engine {
namespace {

int64_t Milliwatts(double watts) { return std::llround(watts * 1000); }

}  // namespace

FacilityLedger::FacilityLedger(const model::Cluster& cluster) {
  const model::Facility& facility = cluster.facility();
  power_domain_count_ = static_cast<uint32_t>(facility.power_domains.size());
  const size_t node_count = cluster.nodes().size();
  std::vector<std::vector<uint32_t>> by_node(node_count);
  auto cover = [&](DomainId covered, uint32_t element) {
    const model::Domain& domain = cluster.domain(covered);
    for (uint32_t node = domain.node_begin; node < domain.node_end; ++node) {
      if (by_node[node].empty() || by_node[node].back() != element) {
        by_node[node].push_back(element);
      }
    }
  };
  for (const model::PowerDomain& power : facility.power_domains) {
    const auto element = static_cast<uint32_t>(elements_.size());
    elements_.push_back(
        {.kind = Kind::kPower, .name = power.name, .limit_mw = power.limit_w * 1000});
    for (DomainId covered : power.domains) cover(covered, element);
  }
  for (const model::CoolingZone& zone : facility.cooling_zones) {
    const auto element = static_cast<uint32_t>(elements_.size());
    const int64_t capacity_mw = zone.cooling_capacity_w * 1000;
    elements_.push_back({.kind = Kind::kCooling, .name = zone.name, .limit_mw = capacity_mw});
    cover(zone.domain, element);
  }
  node_element_begin_.reserve(node_count + 1);
  node_element_begin_.push_back(0);
  for (const std::vector<uint32_t>& elements : by_node) {
    node_elements_.insert(node_elements_.end(), elements.begin(), elements.end());
    node_element_begin_.push_back(static_cast<uint32_t>(node_elements_.size()));
  }
  // An element covers a domain when it is over every node of it (nodes are contiguous in a
  // domain, so over its first and last node and all between).
  domain_element_begin_.reserve(cluster.domains().size() + 1);
  domain_element_begin_.push_back(0);
  for (const model::Domain& domain : cluster.domains()) {
    if (domain.node_begin < domain.node_end) {
      for (uint32_t element : ElementsOver(NodeId(domain.node_begin))) {
        bool covers = true;
        for (uint32_t node = domain.node_begin + 1; node < domain.node_end && covers; ++node) {
          const std::span<const uint32_t> over = ElementsOver(NodeId(node));
          covers = std::find(over.begin(), over.end(), element) != over.end();
        }
        if (covers) domain_elements_.push_back(element);
      }
    }
    domain_element_begin_.push_back(static_cast<uint32_t>(domain_elements_.size()));
  }
  for (const model::DeviceClass& device_class : cluster.device_classes()) {
    const model::DevicePowerSpec& spec = model::PowerSpecOf(device_class.model);
    const double idle_w = model::DrawUnder(spec, model::IdleProfile(), spec.tdp_w).mean_w;
    class_idle_mw_.push_back(Milliwatts(idle_w));
    class_spec_.push_back(&spec);
    class_nominal_mw_.push_back(Milliwatts(spec.tdp_w));
    for (uint32_t rung = 0; rung < kRungs; ++rung) {
      const double cap_w =
          rung == 0 ? spec.tdp_w : model::ClampCap(spec, spec.tdp_w * kRungMilli[rung] / 1000.0);
      const model::PowerDraw busy = model::DrawUnder(spec, model::TrainingProfile(), cap_w);
      rungs_.push_back({.cap_w = rung == 0 ? 0 : static_cast<uint32_t>(std::lround(cap_w)),
                        .work_mw = Milliwatts(busy.mean_w - idle_w),
                        .speed = busy.speed});
    }
  }
  // Every device draws its idle power, busy or not.
  for (const model::Device& device : cluster.devices()) {
    const int64_t idle_mw = class_idle_mw_[device.device_class.value()];
    for (uint32_t element : ElementsOver(device.node)) elements_[element].load_mw += idle_mw;
  }
}

uint32_t FacilityLedger::RungOf(DeviceClassId device_class, uint32_t cap_w) const {
  for (uint32_t rung = 0; rung < kRungs; ++rung) {
    if (CapW(device_class, rung) == cap_w) return rung;
  }
  return kRungs;
}

int64_t FacilityLedger::WorkDrawMw(DeviceClassId device_class, uint32_t devices,
                                   uint32_t milli_per_device, uint32_t rung) const {
  HR_CHECK(rung < kRungs);
  return rungs_[device_class.value() * kRungs + rung].work_mw * milli_per_device /
         model::kMilliPerDevice * devices;
}

std::pair<int64_t, int64_t> FacilityLedger::DeviceDrawMw(DeviceClassId device_class,
                                                         uint32_t cap_w) const {
  const int64_t tdp_mw = class_nominal_mw_[device_class.value()];
  if (cap_w == 0) return {WorkDrawMw(device_class, 1, model::kMilliPerDevice), tdp_mw};
  const int64_t nominal_mw = std::min<int64_t>(int64_t{cap_w} * 1000, tdp_mw);
  const uint32_t rung = RungOf(device_class, cap_w);
  if (rung < kRungs) return {WorkDrawMw(device_class, 1, model::kMilliPerDevice, rung), nominal_mw};
  // A cap set outside the ladder (an operator's, restored live): the power model at it.
  const model::PowerDraw busy =
      model::DrawUnder(*class_spec_[device_class.value()], model::TrainingProfile(), cap_w);
  return {Milliwatts(busy.mean_w) - class_idle_mw_[device_class.value()], nominal_mw};
}

int64_t FacilityLedger::NominalDrawMw(DeviceClassId device_class, uint32_t devices,
                                      uint32_t milli_per_device, uint32_t rung) const {
  if (rung != 0) {
    return std::min<int64_t>(int64_t{CapW(device_class, rung)} * 1000,
                             class_nominal_mw_[device_class.value()]) *
           devices;
  }
  return class_nominal_mw_[device_class.value()] * milli_per_device / model::kMilliPerDevice *
         devices;
}

void FacilityLedger::SetMargin(double share) {
  HR_CHECK(share >= 0 && share < 1);
  margin_share_ = share;
  for (Element& element : elements_)
    element.margin_mw = std::llround(static_cast<double>(element.limit_mw) * share);
}

void FacilityLedger::SetLimit(uint32_t element, int64_t limit_mw) {
  HR_CHECK(limit_mw >= 0);
  elements_[element].limit_mw = limit_mw;
  elements_[element].margin_mw = std::llround(static_cast<double>(limit_mw) * margin_share_);
}

std::pair<int64_t, int64_t> FacilityLedger::TaskDrawMw(const TaskAllocation& task,
                                                       const model::Cluster& cluster) const {
  int64_t work_mw = 0;
  int64_t nominal_mw = 0;
  for (DeviceId device : task.devices) {
    const DeviceClassId device_class = cluster.device(device).device_class;
    if (task.power_cap_w != 0 && task.milli_per_device == model::kMilliPerDevice) {
      const auto [device_work_mw, device_nominal_mw] = DeviceDrawMw(device_class, task.power_cap_w);
      work_mw += device_work_mw;
      nominal_mw += device_nominal_mw;
      continue;
    }
    work_mw += WorkDrawMw(device_class, 1, task.milli_per_device);
    nominal_mw += NominalDrawMw(device_class, 1, task.milli_per_device);
  }
  return {work_mw, nominal_mw};
}

std::vector<std::pair<uint32_t, int64_t>> FacilityLedger::GangDrawMw(
    std::span<const TaskAllocation> gang, const model::Cluster& cluster,
    Projection projection) const {
  std::vector<std::pair<uint32_t, int64_t>> draws;
  for (const TaskAllocation& task : gang) {
    const auto [work_mw, nominal_mw] = TaskDrawMw(task, cluster);
    const int64_t draw_mw = projection == Projection::kLoad ? work_mw : nominal_mw;
    for (uint32_t element : ElementsOver(task.node)) {
      auto it = std::find_if(draws.begin(), draws.end(),
                             [&](const auto& draw) { return draw.first == element; });
      if (it == draws.end()) {
        draws.push_back({element, draw_mw});
      } else {
        it->second += draw_mw;
      }
    }
  }
  return draws;
}

void FacilityLedger::Apply(const TaskAllocation& task, const model::Cluster& cluster, int sign) {
  const std::span<const uint32_t> elements = ElementsOver(task.node);
  if (elements.empty() || task.devices.empty()) return;
  const auto [work_mw, nominal_mw] = TaskDrawMw(task, cluster);
  for (uint32_t element : elements) {
    elements_[element].load_mw += sign * work_mw;
    elements_[element].nominal_mw += sign * nominal_mw;
    HR_CHECK(elements_[element].nominal_mw >= 0);
  }
}

}  // namespace headroom::engine
