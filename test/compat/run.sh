#!/usr/bin/env bash
# Builds the package, packs it, and installs the tarball into a minimal Nest 11 CommonJS app and a minimal
# Nest 12 ESM app, each in a scratch copy (so no node_modules land in the repo), then runs each app's smoke
# test. Every step is bounded by a timeout, and the scratch folder is removed however the script ends.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="$(mktemp -d -t nestjs-mcp-compat.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT

cd "$root"
timeout 300 npm run build --silent
tarball="$scratch/$(timeout 120 npm pack --silent --pack-destination "$scratch" | tail -n 1)"

cp "$here/smoke-cases.cjs" "$scratch/"
for app in nest11-cjs nest12-esm; do
  echo "== compat: $app"
  mkdir "$scratch/$app"
  cp "$here/$app/package.json" "$here/$app"/*.js "$scratch/$app/"
  (
    cd "$scratch/$app"
    timeout 600 npm install --no-audit --no-fund --no-package-lock --loglevel=error "$tarball"
    timeout 300 npm test
  )
done
