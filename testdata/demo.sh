#!/usr/bin/env bash
# The "make demo" script: run by fedctl-testenv with KUBECONFIG pointing at
# three fresh local API servers (contexts cluster1..cluster3). It shows what
# a user types; the federation file lives in the demo's temporary directory.
set -euo pipefail
fedctl=${1:-fedctl}
export FEDCTL_CONFIG="${FEDCTL_TESTENV_DIR:-$(mktemp -d)}/federation.yaml"

step() {
  if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    printf '\n\033[1m$ fedctl %s\033[0m\n' "$*"
  else
    printf '\n$ fedctl %s\n' "$*"
  fi
  "$fedctl" "$@"
}

step join cluster1 --label region=eu-west-1 --label tier=prod
step join cluster2 --label region=eu-west-2 --label tier=prod
step join cluster3 --cluster-context cluster3 --label region=us-east-1 --label tier=staging
step get clusters
step get clusters -o wide
step label cluster cluster3 tier=prod --overwrite
printf '\n$ cat %s\n' "$FEDCTL_CONFIG"
cat "$FEDCTL_CONFIG"

# What each member would get for the examples: a namespace, a ConfigMap for
# the prod clusters and a Deployment whose 6 replicas an RSP splits.
examples="$(dirname "$0")/examples"
step render -f "$examples" --cluster cluster2

# Push them: every member in parallel, server-side apply, a summary per
# cluster. The second run finds nothing to change and writes nothing.
step apply -f "$examples"
step apply -f "$examples"
