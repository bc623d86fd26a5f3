#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# libwsx.so exports exactly the functions of libwsx.map, each at the
# version of its node there, and those are exactly the functions
# wsx/libwsx.h declares.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. ../testlib/ktap.sh

# Two sorted lists are equal; prints their difference if not.
same() {
	diff "$tmp/$1" "$tmp/$2" | sed 's/^/# /'
	cmp -s "$tmp/$1" "$tmp/$2"
	ok $? "$3"
}

readelf -d libwsx.so.1 | grep -q 'SONAME.*\[libwsx\.so\.1\]'
ok $? "soname is libwsx.so.1"

nm -D --defined-only libwsx.so.1 | awk '$2 == "T" { print $3 }' |
	sort >"$tmp/exported"
awk '/^LIBWSX_[0-9.]* {/ { v = $1 }
     /^\t\twsx_[a-z0-9_]*;$/ { sub(/;$/, "", $1); print $1 "@@" v }' \
	libwsx.map | sort >"$tmp/map"
sed 's/@@.*//' "$tmp/map" >"$tmp/map_names"
sed -n 's/^[a-z].*[ *]\(wsx_[a-z0-9_]*\)(.*/\1/p' \
	include/wsx/libwsx.h | sort >"$tmp/header"

[ -s "$tmp/map" ]
ok $? "the map lists functions"
same exported map "exported functions are those of libwsx.map"
same header map_names "libwsx.h declares the functions of libwsx.map"
nm -D --defined-only libwsx.so.1 | awk '$2 != "T" && $2 != "A"' \
	>"$tmp/other"
[ ! -s "$tmp/other" ]
ok $? "no data or other symbols exported"

echo "1..$n"
[ "$failed" = 0 ]
