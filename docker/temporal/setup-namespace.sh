#!/bin/sh
# Waits for Temporal, creates the namespace if missing, and registers pointsman's search
# attributes (the worker also registers any that are missing when it starts).
set -eu
ns=${NAMESPACE:-default}
tries=0
until temporal operator cluster health >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -le 60 ] || { echo "Temporal at $TEMPORAL_ADDRESS did not become healthy"; exit 1; }
  sleep 2
done
temporal operator namespace describe --namespace "$ns" >/dev/null 2>&1 \
  || temporal operator namespace create --namespace "$ns" --retention 72h
for name in TargetKeyspace VReplicationWorkflow SwitchPhase; do
  if temporal operator search-attribute list --namespace "$ns" | grep -qw "$name"; then
    echo "search attribute $name exists"
  else
    temporal operator search-attribute create --namespace "$ns" --name "$name" --type Keyword
  fi
done
echo "namespace $ns is ready for pointsman"
