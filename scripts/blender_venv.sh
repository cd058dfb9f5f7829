#!/usr/bin/env bash
# Create .venv-blender: Python 3.11 with Blender as a module (bpy 4.5 LTS), for the Blender add-on's headless
# tests (tests/blender/). bpy 4.5 needs numpy<2, so it cannot share the project .venv.
# Idempotent: a second run only checks. Usage: scripts/blender_venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BPY_PIN="${BPY_PIN:-bpy==4.5.15}"
venv=.venv-blender
stamp="$venv/.seed3d-installed"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$BPY_PIN" ]]; then
  echo "blender_venv: $venv is ready ($BPY_PIN)"
  exit 0
fi

PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), f"bpy 4.5 needs Python 3.11, found {sys.version.split()[0]}"'
[[ -x "$venv/bin/python" ]] || "$PY" -m venv "$venv"

# Blender's shared libraries want X11/GL client libraries even when it runs headless (no window is opened).
if command -v dpkg-query >/dev/null; then
  need=()
  for pkg in libxrender1 libxxf86vm1 libxfixes3 libxi6 libxkbcommon0 libsm6 libgl1 libegl1; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
  done
  if (( ${#need[@]} )); then
    echo "blender_venv: installing system libraries: ${need[*]}"
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
fi

echo "blender_venv: installing $BPY_PIN into $venv (about 950 MB installed)"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$BPY_PIN"
"$venv/bin/python" -c 'import bpy; print("blender_venv: bpy", bpy.app.version_string)'
echo "$BPY_PIN" > "$stamp"
