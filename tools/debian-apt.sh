# shellcheck shell=bash
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# debian-apt.sh: an apt of its own for one Debian suite, sourced by
# tools/build-against (rdma-core of another suite) and tools/rxe-vm (the
# sid guest's kernel, rdma-core 44 for its root).  Its own sources, package
# lists, cache and an empty status file under one directory, so that
# nothing of the system's apt state is read or changed; apt-get download
# and apt-cache work as the system's do.
#
#   apt_iso_setup DIR SUITE   sources.list for SUITE of $DEBIAN_MIRROR
#                             (default http://deb.debian.org/debian), main;
#                             apt-get update.  Fails when the update does.
#   apt_iso_get DIR ARGS...   apt-get with DIR's state
#   apt_iso_cache DIR ARGS... apt-cache with DIR's state
#   apt_iso_field DIR PKG FIELD   a field of PKG's candidate ('' if none)

apt_iso_mirror() { echo "${DEBIAN_MIRROR:-http://deb.debian.org/debian}"; }

apt_iso_o() {	# the options for DIR, into the array APT_ISO_O
	local a=$1
	APT_ISO_O=(-o "Dir::Etc::SourceList=$a/sources.list"
		   -o Dir::Etc::SourceParts=/nonexistent
		   -o "Dir::State::Lists=$a/lists" -o "Dir::State::status=$a/status"
		   -o "Dir::Cache=$a/cache" -o APT::Sandbox::User=root)
}

apt_iso_get() {
	local a=$1 APT_ISO_O
	shift
	apt_iso_o "$a"
	apt-get "${APT_ISO_O[@]}" "$@"
}

apt_iso_cache() {
	local a=$1 APT_ISO_O
	shift
	apt_iso_o "$a"
	apt-cache "${APT_ISO_O[@]}" "$@"
}

apt_iso_setup() {
	local a=$1 suite=$2
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	: >"$a/status"
	echo "deb $(apt_iso_mirror) $suite main" >"$a/sources.list"
	apt_iso_get "$a" -qq update >/dev/null 2>&1
}

apt_iso_field() {
	apt_iso_cache "$1" show --no-all-versions "$2" 2>/dev/null |
		sed -n "s/^$3: //p" | head -n1 || true
}
