#!/bin/sh
# What `npm install <tarball>` brings into an empty project: packages (by name) and MB (10^6 bytes, apparent size),
# and which @nestjs packages came with it.
#   npm pack && scripts/install-size.sh nest-turn-status-0.1.0.tgz
#   npm pack ./packages/client && scripts/install-size.sh nest-turn-status-client-0.1.0.tgz
set -eu
tarball=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
echo '{"name":"install-size","private":true}' >package.json
npm install --no-audit --no-fund --prefer-offline "$tarball" >/dev/null 2>&1
packages=$(npm ls --all --parseable | tail -n +2 | sed 's#.*node_modules/##' | sort -u | wc -l)
mb=$(du -sb node_modules | awk '{ printf "%.1f", $1 / 1000000 }')
nest=$(ls node_modules/@nestjs 2>/dev/null | tr '\n' ' ')
echo "$(basename "$tarball"): $packages packages, $mb MB; @nestjs: ${nest:-none}"
