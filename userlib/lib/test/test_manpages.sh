#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# The man pages in man/ cover the API: every function of libwsx.map has its
# page (its own or a .so link to its group's page, whose NAME line names
# it) and a SYNOPSIS line that declares it; each example of libwsx(3)
# builds against the header and the library with the flags of
# libwsx-uninstalled.pc (building against the tree), and one that reads the CPU or
# the times of a ring's records asks for them (WSX_REQ_TIMESTAMPS: without
# it they are 0); the structs a call returns are listed in its page, each
# field with its type and a comment.
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

# libwsx(3)'s Versioning lists each symbol version with exactly its
# functions, as libwsx.map has them
awk '/^LIBWSX_[0-9.]* {/ { v = $1 }
     /^\t\twsx_[a-z0-9_]*;$/ { sub(/;$/, "", $1); print $1 "@" v }' \
	libwsx.map | sort >"$tmp/map"
sed -n '/^\.SS Versioning/,/^\.S[HS] [^V]/p' man/libwsx.3 |
	awk '/^\.B LIBWSX_[0-9.]*$/ { v = $2; next }
	     /^\.(PP|SH|SS)/ { v = "" }
	     v != "" { gsub(/"|,/, " "); for (i = 2; i <= NF; i++)
			if ($i ~ /^wsx_[a-z0-9_]*$/) print $i "@" v }' |
	sort >"$tmp/versioning"
diff "$tmp/map" "$tmp/versioning" | sed 's/^/# /'
[ -s "$tmp/map" ] && cmp -s "$tmp/map" "$tmp/versioning"
ok $? "libwsx(3) lists each symbol version with its functions"

# decls STRUCT FILE: the field declarations of struct STRUCT in FILE (a
# header, or a man page's listing), one "type name;" a line, blanks
# squeezed; with "commented", only those a comment explains.
decls() {
	sed -n "/^struct $1 {/,/^};/p" "$2" | sed '1d;$d' |
		if [ "${3:-}" = commented ]; then grep -F '/*'; else cat; fi |
		sed 's|/\*.*\*/||; s/^[[:blank:]]*//; s/[[:blank:]][[:blank:]]*/ /g;
		     s/ *$//' | grep -v '^$'
}

# Each field of the structs a user reads is listed, with its type and a
# comment saying what it holds, in the page that returns the struct.
for sp in wsx_completion:../../uapi/linux/wsx.h:wsx_wait \
	  wsx_pstats:include/wsx/libwsx.h:wsx_stats_read \
	  wsx_gstats:include/wsx/libwsx.h:wsx_stats_read \
	  wsx_stats:include/wsx/libwsx.h:wsx_stats_read; do
	s=${sp%%:*}
	h=${sp#*:}
	pg=man/${h#*:}.3
	h=${h%%:*}
	decls "$s" "$h" | sort >"$tmp/h_$s"
	decls "$s" "$pg" commented | sort >"$tmp/p_$s"
	comm -23 "$tmp/h_$s" "$tmp/p_$s" | sed 's/^/# not in the page: /'
	[ -s "$tmp/h_$s" ] && [ -z "$(comm -23 "$tmp/h_$s" "$tmp/p_$s")" ]
	ok $? "${pg#man/} lists each field of struct $s with a comment"
done

# pc FIELD: FIELD of libwsx-uninstalled.pc, its variables expanded (no
# pkg-config: the package build does not depend on it).
pc() {
	(eval "$(sed -n 's/^\([a-z]*\)=\(.*\)$/\1="\2"/p' libwsx-uninstalled.pc)"
	 eval "echo $(sed -n "s/^$1: //p" libwsx-uninstalled.pc)")
}

# The examples, each between .EX and .EE, with man's escapes undone.
awk -v dir="$tmp" '/^\.EX/ { f = dir "/example" ++k ".c"; next }
		   /^\.EE/ { close(f); f = ""; next }
		   f { gsub(/\\e/, "\\"); gsub(/\\-/, "-"); print > f }' man/libwsx.3
for c in "$tmp"/example*.c; do
	x=${c%.c}
	${CC:-cc} -std=gnu11 -Wall -Wextra -Werror $(pc Cflags) \
		-o "$x" "$c" $(pc Libs) 2>&1 | sed 's/^/# /'
	[ -x "$x" ]
	ok $? "the example ${x##*/} of libwsx(3) builds with libwsx-uninstalled.pc's flags"
	if grep -q wsx_ring_peek "$c" && grep -Eq '(->|\.)(cpu|[a-z]*_ns)\>' "$c"; then
		grep -q WSX_REQ_TIMESTAMPS "$c"
		ok $? "the example ${x##*/} of libwsx(3) asks for the ring records' CPU and times it prints"
	fi
done

echo "1..$n"
[ "$failed" = 0 ]
