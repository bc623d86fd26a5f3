#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# The man pages in man/ cover the API: every function of libwsx.map has its
# page (its own or a .so link to its group's page, whose NAME line names
# it) and a SYNOPSIS line that declares it; the example of
# libwsx(3) builds against the header and the library.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. ../testlib/ktap.sh

# page FN: the page that documents FN, following one .so link.
page() {
	f=man/$1.3
	[ -f "$f" ] || return 1
	target=$(sed -n 's|^\.so man3/\(.*\)$|\1|p' "$f")
	[ -n "$target" ] && f=man/$target
	[ -f "$f" ] && echo "$f"
}

for fn in $(sed -n 's/^\t\t\(wsx_[a-z0-9_]*\);$/\1/p' libwsx.map); do
	f=$(page "$fn")
	[ -n "$f" ] && sed -n '/^\.SH NAME/{n;p}' "$f" |
		grep -qE "(^|[ ,])$fn([ ,]|$)" &&
		grep -qE "^\.BI \"[a-z].*[ *]$fn\(" "$f"
	ok $? "$fn has a man page naming and declaring it"
done

# The example, between .EX and .EE, with man's escapes undone.
sed -n '/^\.EX/,/^\.EE/p' man/libwsx.3 | sed -e '/^\.E[XE]/d' \
	-e 's/\\e/\\/g' -e 's/\\-/-/g' >"$tmp/example.c"
${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -Iinclude -I../../uapi \
	-o "$tmp/example" "$tmp/example.c" -L. -lwsx 2>&1 | sed 's/^/# /'
[ -x "$tmp/example" ]
ok $? "the example of libwsx(3) builds"

echo "1..$n"
[ "$failed" = 0 ]
