#!/usr/bin/env bash
# Installs the Debian packages headroom needs to build, run and test; only those missing.
# Idempotent, no prompts; uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache clang clang-format libclang-rt-14-dev
  libexpected-dev libfmt-dev libspdlog-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  libsqlite3-dev libssl-dev nettle-dev libcpp-httplib-dev libmicrohttpd-dev openssl curl python3
  # Real components the integration tests drive: the dashboard in a browser, /metrics scraped.
  chromium prometheus
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
