#!/bin/bash
# Stand-in of an msOpGen project's build.sh (tests/cann): compiles op_host/ and op_kernel/ for
# ASCEND_COMPUTE_UNIT of CMakePresets.json, compiles the generated aclnn interface into
# libcust_opapi.so (against the toolkit's include/ and the stand-in runtime libraries on
# LD_LIBRARY_PATH) and packs build_out/custom_opp_<os>_<arch>.run, the installer
# `<run> --install-path=DIR` puts under DIR/vendors/<vendor_name>/.
#
# `build.sh TARGET` (the stand-in cmake's `cmake --build build_out --target TARGET`) is a partial
# build of the already built project: `cust_optiling` the tiling library only
# (build_out/op_host/libcust_opmaster_rt2.0.so), `ascendc_bin_<unit>` the kernel binaries of
# that compute unit only (build_out/op_kernel/binary/<unit>/bin/); no package, no install.
# AOPT_STANDIN_STEP_LOG records each step (and the installer's install) with its times.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${ASCEND_TOOLKIT_HOME:-}" ]; then
  echo "[ERROR] ASCEND_TOOLKIT_HOME is not set: source <CANN>/set_env.sh first" >&2
  exit 1
fi
preset_value() { sed -n "s/.*\"$1\": *{[^}]*\"value\": *\"\([^\"]*\)\".*/\1/p" "$here/CMakePresets.json" | head -1; }
unit=$(preset_value ASCEND_COMPUTE_UNIT)
vendor=$(preset_value vendor_name)
device="${AOPT_STANDIN_DEVICE:?AOPT_STANDIN_DEVICE must name the stand-in device binary}"
if [ $# -gt 0 ]; then
  if [ ! -d "$here/build_out" ]; then
    echo "[ERROR] target $1: build_out/ does not exist; build the project once (bash build.sh) first" >&2
    exit 1
  fi
  case "$1" in
    cust_optiling) exec "$device" build-step tiling "$here" "$here/build_out/op_host" ;;
    "ascendc_bin_$unit") exec "$device" build-step kernel "$here" "$here/build_out/op_kernel/binary/$unit/bin" ;;
    *) echo "[ERROR] unknown target '$1' (stand-in targets: cust_optiling, ascendc_bin_$unit)" >&2; exit 1 ;;
  esac
fi
rm -rf "$here/build_out"
mkdir -p "$here/build_out/payload"
echo "[INFO] building custom operator package for $unit (vendor $vendor)"
"$device" build "$here" "$here/build_out/payload"
mkdir -p "$here/build_out/op_host" "$here/build_out/op_kernel/binary/$unit/bin"
cp "$here/build_out/payload/libcust_opmaster_rt2.0.so" "$here/build_out/op_host/"
cp "$here/build_out/payload/standin_kernels.json" "$here/build_out/op_kernel/binary/$unit/bin/"
api="$here/build_out/payload/op_api"
libdirs=()
IFS=: read -ra _dirs <<< "${LD_LIBRARY_PATH:-}"
for d in "${_dirs[@]}"; do [ -n "$d" ] && libdirs+=("-L$d"); done
"${CXX:-c++}" -std=c++20 -O1 -shared -fPIC -I"$ASCEND_TOOLKIT_HOME/include" -I"$api" "$api"/aclnn_*.cpp \
  -o "$api/libcust_opapi.so" "${libdirs[@]}" -lnnopbase -lascendcl
run="$here/build_out/custom_opp_$(uname -s | tr A-Z a-z)_$(uname -m).run"
cat > "$run" <<INSTALLER
#!/bin/bash
# custom operator package (stand-in): --install-path=DIR [--quiet]
# Without --quiet it asks before installing, as a .run package can: no answer, no install.
set -eu
dest=""
quiet=0
for a in "\$@"; do case "\$a" in --install-path=*) dest="\${a#--install-path=}" ;; --quiet) quiet=1 ;; esac; done
if [ -z "\$dest" ]; then echo "[ERROR] --install-path=DIR is required" >&2; exit 1; fi
if [ \$quiet -eq 0 ]; then
  printf 'Do you want to install the custom operator package to %s? [y/n] ' "\$dest"
  if ! read -r answer || [ "\$answer" != y ]; then
    echo
    echo "[ERROR] installation cancelled: no answer (run the package with --quiet to install without asking)" >&2
    exit 1
  fi
fi
start=\$(date +%s.%N)
base="\$dest/vendors/$vendor"
tiling="\$base/op_impl/ai_core/tbe/op_tiling/lib/linux/\$(uname -m)"
mkdir -p "\$base/op_impl/ai_core/tbe/config/$unit" "\$base/op_impl/ai_core/tbe/kernel/$unit" "\$tiling" "\$base/op_api/lib" "\$base/op_api/include" "\$base/bin"
cp "$here/build_out/payload/ops-info.json" "\$base/op_impl/ai_core/tbe/config/$unit/aic-$unit-ops-info.json"
cp "$here/build_out/op_host/libcust_opmaster_rt2.0.so" "\$tiling/"
cp -r "$here/build_out/op_kernel/binary/$unit/bin/." "\$base/op_impl/ai_core/tbe/kernel/$unit/"
cp "$api/libcust_opapi.so" "\$base/op_api/lib/"
cp "$api"/aclnn_*.h "\$base/op_api/include/"
printf 'export ASCEND_CUSTOM_OPP_PATH=%s:\${ASCEND_CUSTOM_OPP_PATH:-}\n' "\$base" > "\$base/bin/set_env.bash"
if [ -n "\${AOPT_STANDIN_STEP_LOG:-}" ]; then
  printf '{"step":"install","project":"%s","start":%s,"end":%s,"ok":true,"pid":%d}\\n' "$here" "\$start" "\$(date +%s.%N)" \$\$ >> "\$AOPT_STANDIN_STEP_LOG"
fi
echo "[INFO] SUCCESS: custom operator package installed to \$base"
INSTALLER
chmod +x "$run"
echo "[INFO] build_out/$(basename "$run") generated"
