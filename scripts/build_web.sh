#!/usr/bin/env bash
# Vendor the web page's npm packages: `npm ci` in web/ (versions pinned by web/package-lock.json), then copy the
# ES modules the page imports into api/static/vendor/ (git-ignored; served locally, no CDN, no bundler).
# Idempotent: a second run with the same lock file only checks. Usage: scripts/build_web.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/.."

command -v npm >/dev/null || { echo "build_web: npm not found; install Node.js 18+ (Debian: apt-get install nodejs npm)" >&2; exit 1; }

vendor=api/static/vendor
stamp="$vendor/.installed"
want="$(cat web/package-lock.json scripts/build_web.sh | sha256sum | cut -c1-16)"

# Files the page loads (api/static/index.html import map: "three" and "three/addons/").
three=web/node_modules/three
files=(
  LICENSE
  build/three.module.js
  build/three.core.js
  examples/jsm/loaders/GLTFLoader.js
  examples/jsm/controls/OrbitControls.js
  examples/jsm/environments/RoomEnvironment.js
  examples/jsm/utils/BufferGeometryUtils.js
  examples/jsm/utils/SkeletonUtils.js
)

up_to_date() {
  [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] || return 1
  for f in "${files[@]}"; do [[ -f "$vendor/three/$f" ]] || return 1; done
}
if [[ "${1:-}" != "--force" ]] && up_to_date; then
  echo "build_web: $vendor is up to date"
  exit 0
fi

echo "build_web: npm ci in web/"
(cd web && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)

# Build beside the final folder, then swap it in, so the page never sees a half-copied vendor folder.
tmp="$(mktemp -d api/static/.vendor.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
for f in "${files[@]}"; do
  mkdir -p "$tmp/three/$(dirname "$f")"
  cp "$three/$f" "$tmp/three/$f"
done

# Every relative import of a copied module must be copied too (catches a three.js upgrade that adds one).
missing=0
while IFS= read -r js; do
  dir="$(dirname "$js")"
  while IFS= read -r rel; do
    [[ -f "$dir/$rel" ]] || { echo "build_web: $js imports $rel, which is not vendored" >&2; missing=1; }
  done < <(grep -oE "from '\.{1,2}/[^']+'" "$js" | sed -E "s/^from '(.*)'$/\1/" | sort -u)
done < <(find "$tmp" -name '*.js')
(( missing == 0 )) || exit 1

echo "$want" > "$tmp/.installed"
chmod 755 "$tmp"
rm -rf "$vendor.old"
[[ -d "$vendor" ]] && mv "$vendor" "$vendor.old"
mv "$tmp" "$vendor"
rm -rf "$vendor.old"
trap - EXIT
echo "build_web: vendored three $(node -p "require('./$three/package.json').version") into $vendor ($(du -sh "$vendor" | cut -f1))"
