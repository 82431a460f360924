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

# scale_by_hand CLUSTER NAMESPACE NAME REPLICAS changes a Deployment the way
# a person with kubectl would, without fedctl (and without kubectl, which
# this machine need not have): a merge patch with the context's token.
# set_lb CLUSTER NAMESPACE NAME IP gives a Service a load balancer the way
# a cloud controller does: through its status subresource.
set_lb() {
  local server token
  server=$(awk -v c="$1" '$1 == "server:" {s = $2} $1 == "name:" && $2 == c && s != "" {print s; exit}' "$KUBECONFIG")
  token=$(awk -v c="$1" '$1 == "-" && $2 == "name:" {n = $3} $1 == "token:" && n == c {print $2; exit}' "$KUBECONFIG")
  curl -fsSk -X PATCH -H "Authorization: Bearer $token" -H 'Content-Type: application/merge-patch+json' \
    --data "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"$4\"}]}}}" \
    "$server/api/v1/namespaces/$2/services/$3/status" >/dev/null
}

scale_by_hand() {
  local server token
  server=$(awk -v c="$1" '$1 == "server:" {s = $2} $1 == "name:" && $2 == c && s != "" {print s; exit}' "$KUBECONFIG")
  token=$(awk -v c="$1" '$1 == "-" && $2 == "name:" {n = $3} $1 == "token:" && n == c {print $2; exit}' "$KUBECONFIG")
  curl -fsSk -X PATCH -H "Authorization: Bearer $token" -H 'Content-Type: application/merge-patch+json' \
    --data "{\"spec\":{\"replicas\":$4}}" \
    "$server/apis/apps/v1/namespaces/$2/deployments/$3?fieldManager=kubectl-scale" >/dev/null
}

step join cluster1 --label region=eu-west-1 --label tier=prod --region eu-west-1 --zone eu-west-1a
step join cluster2 --label region=eu-west-2 --label tier=prod --region eu-west-2 --zone eu-west-2a
step join cluster3 --cluster-context cluster3 --label region=us-east-1 --label tier=staging --region us-east-1 --zone us-east-1a
step get clusters
step get clusters -o wide
step label cluster cluster3 tier=prod --overwrite
printf '\n$ cat %s\n' "$FEDCTL_CONFIG"
cat "$FEDCTL_CONFIG"

# What each member would get for the examples: a namespace, a ConfigMap for
# the prod clusters and a Deployment whose 6 replicas an RSP splits.
examples="$(dirname "$0")/examples"
step render -f "$examples" --cluster cluster2

# Why: placement, the replica plan step by step, each override.
step explain -f "$examples" deployment/web

# Push them: every member in parallel, server-side apply, a summary per
# cluster; --wait until every object is Current (kstatus). The second run
# finds nothing to change and writes nothing.
step apply -f "$examples" --wait
step apply -f "$examples"

# What runs where, read from the members.
step status -f "$examples"
step get deployments -n shop

# The same, written the Karmada way: plain manifests plus a PropagationPolicy
# dividing the Deployment 1:2:3 and an OverridePolicy giving the us member
# its registry mirror. explain shows the policy chosen, the division seat by
# seat and each overrider; apply pushes what Karmada would create.
karmada="$(dirname "$0")/karmada"
step explain -f "$karmada" deployment/api
step apply -f "$karmada" --wait
step status -f "$karmada"

# Move the examples off cluster3, as kubectl drain empties a node: the
# replicas that move and whether they fit on the others' nodes, then cordon,
# apply elsewhere, wait until Current, and remove from cluster3.
step drain cluster3 -f "$examples" --dry-run=client --force
step drain cluster3 -f "$examples" --force
step get clusters
step uncordon cluster3
step apply -f "$examples" --wait

# Roll a change out wave by wave: cluster3 is the canary, then cluster1
# (eu), then the rest. The waves are written in the federation file; explain shows the
# order, and apply --rollout applies a wave, waits until it is Current, runs
# the gate (a smoke test) and only then touches the next. The eu smoke test
# fails: the rollout stops there, exit 3, and nothing else is touched. Once
# it is fixed, the same command resumes: no write to the canary.
cat >> "$FEDCTL_CONFIG" <<'YAML'
rollout:
  waves:
  - name: canary
    clusters: [cluster3]
  - name: eu
    clusterSelector: {matchLabels: {region: eu-west-1}}
  - name: rest               # every other member
  timeout: 2m
YAML
printf '\n$ tail -9 %s\n' "$FEDCTL_CONFIG"
tail -9 "$FEDCTL_CONFIG"
changed="$(mktemp -d)"
cp "$examples"/*.yaml "$changed"
sed -i 's/greeting: hello/greeting: hello again/' "$changed/10-configmap.yaml"
step explain -f "$changed" --rollout namespace/shop
smoke="$changed/smoke-test.sh"
cat > "$smoke" <<SH
#!/bin/sh
# the smoke test of a wave: the eu payment gateway is not ready until fixed
echo "smoke test of wave \$FEDCTL_WAVE (\$FEDCTL_CONTEXTS)"
[ "\$FEDCTL_WAVE" != eu ] || [ -e "$changed/eu-fixed" ]
SH
chmod +x "$smoke"
step apply -f "$changed" --rollout --gate "$smoke" || echo "(exit $?: the rollout stopped at the eu wave)"
touch "$changed/eu-fixed"
step apply -f "$changed" --rollout --gate "$smoke"
step status -f "$changed" -o wide

# Someone scales a member's Deployment by hand: status and diff see it,
# apply puts it back.
if ! command -v curl >/dev/null; then
  echo "(curl not found: the demo stops before editing a member by hand)"
  exit 0
fi
printf '\n$ kubectl --context cluster2 -n shop scale deployment web --replicas=5   # done with curl here\n'
scale_by_hand cluster2 shop web 5
# The person now owns spec.replicas there, so a plain apply or diff stops
# at the conflict (naming field and manager); --force-conflicts takes the
# field back.
step status -f "$examples" --cluster cluster2
step diff -f "$examples" || true
step diff -f "$examples" --force-conflicts || true
step apply -f "$examples" --force-conflicts --wait
step status -f "$examples"

# Multi-cluster DNS for ExternalDNS: the Service web gets a load balancer
# in each member, and a ServiceDNSRecord asks for KubeFed's global, region
# and zone names, each member weighted by its share of the Deployment's
# replicas. fedctl dns prints the DNSEndpoints (apply writes them where
# ExternalDNS runs, named by the Domain's spec.context or --dns-context).
dnsdir="$(dirname "$0")/dns-demo"
step apply -f "$examples" -f "$dnsdir/service.yaml" --wait
for c in 1 2 3; do
  printf '\n$ # the cloud gives cluster%s its load balancer 192.0.2.%s\n' "$c" "$c"
  set_lb "cluster$c" shop web "192.0.2.$c"
done
step dns -f "$examples" -f "$dnsdir"
# The split changes (12 replicas instead of 6): so do the weights.
split="$(mktemp -d)"
cp "$examples"/*.yaml "$split"
sed -i 's/totalReplicas: 6/totalReplicas: 12/' "$split/20-deployment.yaml"
step apply -f "$split" -f "$dnsdir/service.yaml" --wait
step dns -f "$split" -f "$dnsdir" --why

# Moving to a control plane with nothing redeployed: the application as
# Karmada's templates and policies, read back and compared member object by
# member object (exit 3: the RSP's minimums and maximums have no Karmada
# equivalent, and say so with their file:line), and as an Argo CD
# ApplicationSet over render's tree; then fedctl hands the member objects
# over in place (a server-side dry run here, so that nothing changes).
out="$(mktemp -d)"
step convert --to karmada -f "$examples" --verify --output-dir "$out/karmada" || echo "(exit $?: approximated, as listed)"
printf '\n$ ls %s\n' "$out/karmada"; ls "$out/karmada"
step convert --to argocd -f "$examples" --repo https://git.example.com/shop.git --path deploy --output-dir "$out/deploy"
printf '\n$ cat %s\n' "$out/deploy/applicationset.yaml"; cat "$out/deploy/applicationset.yaml"
step release -f "$examples" --dry-run=server
