#!/usr/bin/env bash
# Runs a command with another Node major first on the PATH: the `node@<major>` package from the npm registry,
# installed once into .node-versions/<major>/ (as scripts/conformance.mjs installs the referee's Node 22). npm,
# npx and the scripts they start then run on it. Usage: bash scripts/with-node.sh 22 npm test
set -euo pipefail
major="$1"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.node-versions/$major"
if ! "$dir/bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
  timeout 600 npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$major"
  mkdir -p "$dir/bin"
  ln -sf "$dir/node_modules/node/bin/node" "$dir/bin/node"
fi
export PATH="$dir/bin:$PATH"
echo "# with-node: $(node --version)"
"$@"
