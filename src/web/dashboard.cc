#include "web/dashboard.h"

namespace headroom::web {
namespace {

// The bytes of src/web/dashboard.html as a comma-separated list, written by CMake (see the web
// layer in CMakeLists.txt). No terminating NUL is added, so the size is the file's.
constexpr unsigned char kDashboardHtml[] = {
#include "web/dashboard_html.inc"
};

}  // namespace

std::string_view DashboardHtml() {
  return {reinterpret_cast<const char*>(kDashboardHtml), sizeof kDashboardHtml};
}

}  // namespace headroom::web
