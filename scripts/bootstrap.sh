#!/usr/bin/env bash
# Set up Seed3D on a fresh Debian machine: system libraries (when missing), .venv, the package and its pins.
# Idempotent: a second run only checks. Usage: scripts/bootstrap.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
[[ "${1:-}" == "--dev" ]] && extras="[dev]"

# System packages: libusb for open3d, Mesa EGL/GL for the CPU rasterizer (moderngl on EGL).
# Node.js + npm (when missing) to vendor the web page's three.js. With --dev, Chromium too: the web page's
# browser tests drive /usr/bin/chromium; and PostgreSQL's server binaries (when no initdb is found): the store and
# service tests start a throwaway cluster of their own (tests/api/postgres.py), none is left running. And
# liburdfdom-tools: urdfdom's check_urdf, one of the export tests' independent validators.
need=()
sys_pkgs=(libusb-1.0-0 libegl1 libegl-mesa0 libgl1-mesa-dri libgles2)
command -v npm >/dev/null || sys_pkgs+=(nodejs npm)
if [[ -n "$extras" ]]; then
  sys_pkgs+=(chromium liburdfdom-tools)
  command -v initdb >/dev/null || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || sys_pkgs+=(postgresql)
fi
for pkg in "${sys_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if (( ${#need[@]} )); then
  echo "bootstrap: installing system packages: ${need[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
  # Debian's postgresql package makes and may start a "main" cluster; the tests do not use it: stop it.
  if [[ " ${need[*]} " == *" postgresql "* ]] && command -v pg_ctlcluster >/dev/null; then
    for version in /usr/lib/postgresql/*/; do
      $SUDO pg_ctlcluster "$(basename "$version")" main stop 2>/dev/null || true
    done
  fi
fi

# Python 3.11 virtual environment in the repository root.
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), f"Seed3D needs Python 3.11, found {sys.version.split()[0]}"'
[[ -x .venv/bin/python ]] || "$PY" -m venv .venv

# Install only when the project files changed since the last successful install.
stamp=.venv/.seed3d-installed
want="$(cat pyproject.toml | sha256sum | cut -c1-16)${extras}"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "bootstrap: installing seed3d${extras} into .venv (torch ${TORCH_PIN:-2.13.0} CPU)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".${extras}"
  echo "$want" > "$stamp"
fi
# The web page's vendored npm files (api/static/vendor/, git-ignored).
scripts/build_web.sh
# With --dev: the Khronos glTF validator (npm gltf-validator, pinned by tests/export/gltf_validator/package-lock.json)
# in tests/export/gltf_validator/node_modules/ (git-ignored), for tests/export/test_independent_validators.py.
if [[ -n "$extras" ]]; then
  gv=tests/export/gltf_validator
  gv_want="$(sha256sum < "$gv/package-lock.json" | cut -c1-16)"
  if [[ "$(cat "$gv/node_modules/.seed3d-installed" 2>/dev/null)" != "$gv_want" ]]; then
    echo "bootstrap: npm ci in $gv (gltf-validator)"
    (cd "$gv" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    echo "$gv_want" > "$gv/node_modules/.seed3d-installed"
  fi
fi
# With --dev: .venv-blender (bpy 4.5 LTS needs numpy<2) for the Blender add-on's headless tests.
if [[ -n "$extras" ]]; then scripts/blender_venv.sh; fi
echo "bootstrap: ready ($(.venv/bin/python -c 'import seed3d; print("seed3d", seed3d.__version__)'))"
