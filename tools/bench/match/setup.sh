#!/bin/sh
# Installs the Debian packages whose pictures make the matching benchmark's photo set (see dataset.ts for the folders).
# Real photographs: desktop wallpapers (Plasma, GNOME, MATE, sway, UKUI, Lomiri, Debian), astronomy images (xplanet,
# Stellarium's nebula textures and landscapes) and jigzo's puzzle photos. Run as root (or with sudo) once.
set -eu
PACKAGES="plasma-workspace-wallpapers gnome-backgrounds mate-backgrounds sway-backgrounds ukui-wallpapers
  lomiri-wallpapers lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 desktop-base xplanet-images stellarium-data jigzo-data"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $PACKAGES
