#!/bin/sh
# Build step of pointsman-vitess-proto: copies the .proto files of one Vitess release out of the
# Go module cache (downloading the module through the Go module proxy if it is not cached yet)
# into a folder under target/. Nothing of Vitess is kept in this repository.
# Usage: fetch-vitess-protos.sh <Go module version of vitess.io/vitess, e.g. v0.24.4> <output folder>
set -eu
version="$1"
out="$2"
stamp="$out/.vitess-module-version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
  exit 0 # already there; keeping the files untouched lets protoc and javac skip unchanged work
fi
# a fresh shell may not have Go's default install folder on PATH
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="$PATH:/usr/local/go/bin"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "fetch-vitess-protos: 'go' is not on PATH; it is needed to fetch vitess.io/vitess@$version" >&2
  exit 1
fi
# Ignore any go.work, vendor folder or toolchain switch around the build folder.
export GOTOOLCHAIN=local GOWORK=off GOFLAGS=-mod=mod GO111MODULE=on
json=$(go mod download -json "vitess.io/vitess@$version") || {
  printf '%s\n' "$json" >&2
  exit 1
}
dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir/proto" ]; then
  echo "fetch-vitess-protos: no proto folder for vitess.io/vitess@$version:" >&2
  printf '%s\n' "$json" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
cp "$dir"/proto/*.proto "$out"/
chmod u+w "$out"/*.proto
printf '%s\n' "$version" > "$stamp"
echo "fetch-vitess-protos: $(ls "$out"/*.proto | wc -l) .proto files of vitess.io/vitess@$version in $out"
