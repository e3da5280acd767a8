#!/usr/bin/env bash
# Captures the golden fixtures from Apache Kafka's own JsonConverter (connect-json, version
# in pom.xml) and compares them with testdata/json/*.json.
#
#   run.sh           capture into a temporary directory and compare byte for byte (the
#                    directory is kept only if something differs)
#   run.sh OUT_DIR   capture into OUT_DIR (e.g. `run.sh ..` to overwrite the fixtures),
#                    then compare
#
# Needs Java 17+ and Maven; dependencies come from Maven Central (or ~/.m2). Build output
# goes to target/ here, which git ignores.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fixtures="$(cd "$here/.." && pwd)"

if [[ $# -ge 1 ]]; then
    out="$1"
    mkdir -p "$out"
else
    out="$(mktemp -d)"
fi

# Maven's output is shown only when the build fails (quiet mode still prints colour codes).
if ! build_log="$(mvn -B -q -f "$here/pom.xml" compile dependency:build-classpath \
    -Dmdep.outputFile="$here/target/classpath.txt" 2>&1)"; then
    echo "$build_log" >&2
    exit 1
fi
java -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" Capture "$out"

same=0
differ=0
for captured in "$out"/*.json; do
    name="$(basename "$captured")"
    if cmp -s "$captured" "$fixtures/$name"; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "DIFFERS: $name"
        echo "  java:    $(cat "$captured")"
        if [[ -f "$fixtures/$name" ]]; then
            echo "  fixture: $(cat "$fixtures/$name")"
        else
            echo "  fixture: (missing)"
        fi
    fi
done
for fixture in "$fixtures"/*.json; do
    [[ -f "$out/$(basename "$fixture")" ]] || {
        differ=$((differ + 1))
        echo "NOT CAPTURED: $(basename "$fixture")"
    }
done
echo "$same same, $differ differ (captured in $out)"
if [[ $differ -ne 0 ]]; then
    exit 1
fi
# A temporary capture that matched has nothing left to look at.
if [[ $# -eq 0 ]]; then
    rm -rf "$out"
fi
