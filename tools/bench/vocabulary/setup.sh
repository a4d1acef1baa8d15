#!/bin/sh
# Installs the Debian packages whose pictures train the search vocabulary candidates of tools/bench/vocabulary/run.ts:
# photographic game textures (extremetuxracer-data) and photographs of animals, plants and objects
# (tuxpaint-stamps-default). None of them is read by the matching benchmark, which evaluates the vocabularies.
set -eu
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends extremetuxracer-data tuxpaint-stamps-default
