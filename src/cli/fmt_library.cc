// fmt's compiled part, built into the CLI. Debian ships fmt as a shared library only, and a
// shared fmt brings the shared C++ runtime with it; loading and binding those two was a third
// of `headroom submit`'s start (docs/cli.md "Start time"). Built here from Debian's own
// headers, fmt joins the CLI's static link (CMakeLists.txt). The other programs keep the shared
// library. The templates below are those of fmt 9's headers that are declared there and
// defined only in format-inl.h: each is made here once, for char, as the library's own build
// makes them. With another major version of fmt this file is left out of the build.
#include <fmt/format-inl.h>

namespace fmt {
inline namespace v9 {
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;

}  // namespace detail
}  // namespace v9
}  // namespace fmt
