#!/usr/bin/env bash
# Installs the Debian 12 packages aopt builds with (idempotent; skips apt when all are present).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config ccache mold libcaf-dev librocksdb-dev
  nlohmann-json3-dev libcurl4-openssl-dev prometheus-cpp-dev libgtest-dev libgmock-dev googletest
  libbenchmark-dev libcpp-httplib-dev libasio-dev libcli11-dev libspdlog-dev libfmt-dev
  libtomlplusplus-dev libclang-14-dev libffi-dev curl prometheus openssl python3-numpy)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
