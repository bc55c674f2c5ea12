#!/usr/bin/env bash
# Packs the package (which builds it), then installs the tarball into the two apps `nest new` generates: Nest 11
# (CommonJS, jest + ts-jest) and Nest 12 (ESM, vitest). Each app is a scratch copy (no node_modules land in the
# repo) with shared/mcp-cases.ts added to its test/ folder, and runs its own generated test scripts, configs
# untouched: `npm test` (unit specs in src/) and `npm run test:e2e` (the MCP cases, Express and Fastify). Then
# the three backend apps, each with its own e2e specs, and a Nest monorepo built by the Nest CLI's SWC builder and
# tested by vitest. The Nest 12 app also runs the official conformance referee on its own AppModule (runConformance).
# Prints `# pass N` / `# fail N` per run for .ci/run to add up. Every step is bounded by a timeout, and the
# scratch folder is removed however the script ends.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# COMPAT_WORKDIR keeps the apps and their node_modules for the next run (CI runs them on three Node versions):
# the dependencies and the tarball are the same on each, so they are installed once. `run.sh --install-only`
# installs every app and runs nothing.
if [ -n "${COMPAT_WORKDIR:-}" ]; then
  scratch="$COMPAT_WORKDIR"
  mkdir -p "$scratch"
else
  scratch="$(mktemp -d -t nestjs-mcp-compat.XXXXXX)"
  trap 'rm -rf "$scratch"' EXIT
fi

cd "$root"
# npm pack builds first (prepack); NESTJS_MCP_TARBALL names one already packed (CI packs once for every Node version).
tarball="${NESTJS_MCP_TARBALL:-}"
if [ -z "$tarball" ]; then tarball="$scratch/$(timeout 420 npm pack --silent --pack-destination "$scratch" | tail -n 1)"; fi

# nest12-esm's conformance spec runs the official referee through runConformance; the referee needs Node 22, so on
# Node 20 it is named the Node 22 that scripts/conformance.mjs installs apart (once: CI's referee step did already).
timeout 300 node scripts/conformance.mjs --install-only
export CONFORMANCE_NODE="$root/.conformance/node_modules/node/bin/node"

failed=0
# Runs one test command, echoing its output, then prints the TAP-like counts from jest's or vitest's summary.
run() {
  local label="$1" started log status=0
  shift
  started=$(date +%s)
  log="$(mktemp -p "$scratch")"
  timeout 180 "$@" >"$log" 2>&1 || status=$?
  cat "$log"
  local summary pass fail
  summary="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *Tests:? ' | tail -n 1 || true)"
  pass="$(grep -oE '[0-9]+ passed' <<<"$summary" | grep -oE '[0-9]+' || echo 0)"
  fail="$(grep -oE '[0-9]+ failed' <<<"$summary" | grep -oE '[0-9]+' || echo 0)"
  if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
  echo "# $label: exit $status in $(($(date +%s) - started))s"
  echo "# pass $pass"
  echo "# fail $fail"
  if [ "$status" -ne 0 ]; then failed=1; fi
}

GENERATED_APPS="nest11-cjs nest12-esm"
BACKEND_APPS="nest11-express-backend nest11-fastify-backend nest11-mikro-backend"
MONOREPO_APPS="nest11-swc-monorepo"

# Copies an app into the scratch folder and installs its dependencies and the tarball, unless an earlier run in the
# same COMPAT_WORKDIR installed this tarball there already (CI: the Node 22 and 24 runs, and the install CI starts
# beside the Node 20 jest run with --install-only).
install_app() {
  local app="$1" marker="$scratch/$1/.nestjs-mcp-tarball"
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$tarball" ]; then return; fi
  mkdir -p "$scratch/$app"
  cp -r "$here/$app/." "$scratch/$app"
  case " $GENERATED_APPS " in *" $app "*) cp "$here/shared/mcp-cases.ts" "$scratch/$app/test/" ;; esac
  (
    cd "$scratch/$app"
    # --prefer-offline: what the npm cache already holds is used without asking the registry again (an app's
    # install then takes seconds, not a minute, on a machine that installed it before); a cold cache fetches.
    timeout 600 npm install --no-audit --no-fund --no-package-lock --prefer-offline --loglevel=error "$tarball"
  )
  echo "$tarball" >"$marker"
}

# Runs a command holding the app's lock: runs on other Node versions may go side by side (CI runs two at once),
# but never two of one app, which share its folder and its PostgreSQL tables.
lock_fd=""
lock_app() {
  exec {lock_fd}>"$scratch/.$1.lock"
  flock "$lock_fd"
}
unlock_app() {
  exec {lock_fd}>&-
}

# The app's own type check of the package, in the current folder. COMPAT_TYPECHECK=0 skips it: CI checks the
# types on Node 20 only, as tsc's answer does not depend on the Node version that runs it.
typecheck() {
  if [ "${COMPAT_TYPECHECK:-1}" = 0 ]; then return; fi
  local started
  started=$(date +%s)
  timeout 300 npx tsc --noEmit -p tsconfig.json || failed=1
  echo "# $app tsc --noEmit: done in $(($(date +%s) - started))s"
}

# `--install-only` also type-checks each app (unless COMPAT_TYPECHECK=0) while the next one installs: the
# installs wait on the registry, the type checks on a core. A run after it then passes COMPAT_TYPECHECK=0.
if [ "${1:-}" = --install-only ]; then
  checks=()
  for app in $GENERATED_APPS $BACKEND_APPS $MONOREPO_APPS; do
    started=$(date +%s)
    lock_app "$app"
    install_app "$app"
    unlock_app
    echo "# $app installed in $(($(date +%s) - started))s"
    (cd "$scratch/$app" && typecheck && exit "$failed") >"$scratch/$app.typecheck.log" 2>&1 &
    checks+=("$app:$!")
  done
  for check in "${checks[@]}"; do
    wait "${check#*:}" || failed=1
    cat "$scratch/${check%%:*}.typecheck.log"
  done
  exit "$failed"
fi

for app in $GENERATED_APPS; do
  echo "== compat: $app"
  lock_app "$app"
  install_app "$app"
  cd "$scratch/$app"
  # The package's types, as this module system resolves them, in the app's own tsconfig.
  typecheck
  run "$app npm test" npm test
  run "$app npm run test:e2e" npm run test:e2e
  if [ "$app" = nest11-cjs ]; then
    # What the start-up error tells a jest CommonJS user with auth.jwt to do: the same config, one flag.
    NODE_OPTIONS=--experimental-vm-modules run "$app jwt with --experimental-vm-modules" npx jest --config ./test/jest-e2e.json -t 'auth.jwt'
  fi
  cd "$root"
  unlock_app
done

# Three realistic backends (Express with TypeORM on the machine's PostgreSQL, Fastify, and Express with MikroORM
# on PostgreSQL, nestjs-cls and media-type versioning), each with its own jest e2e specs, run and counted apart:
# mcp.e2e-spec.ts (the endpoint inside the app), then the app's own guards, filters, versioning and stdio around
# tools (mcp-enhancers.e2e-spec.ts; for the MikroORM backend, mcp-stdio.e2e-spec.ts).
for app in $BACKEND_APPS; do
  echo "== compat: $app"
  lock_app "$app"
  install_app "$app"
  cd "$scratch/$app"
  typecheck
  specs="mcp mcp-enhancers"
  if [ "$app" = nest11-mikro-backend ]; then specs="mcp mcp-stdio"; fi
  # The Express backend also runs McpThrottlerGuard on two instances sharing a Redis throttler storage.
  if [ "$app" = nest11-express-backend ]; then specs="mcp mcp-enhancers mcp-rate-limits"; fi
  for spec in $specs; do
    run "$app $spec.e2e-spec.ts" npm run test:e2e -- "test/$spec.e2e-spec.ts"
  done
  cd "$root"
  unlock_app
done
# A Nest monorepo (apps/api, libs/domain) on Fastify: its test:e2e builds it with the Nest CLI's SWC builder, whose
# type check runs nestjs-mcp/plugin over the library's tool too, then runs its vitest specs (unplugin-swc) on the
# sources and on the build.
for app in $MONOREPO_APPS; do
  echo "== compat: $app"
  lock_app "$app"
  install_app "$app"
  cd "$scratch/$app"
  typecheck
  run "$app npm run test:e2e" npm run test:e2e
  cd "$root"
  unlock_app
done
exit "$failed"
