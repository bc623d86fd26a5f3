#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# What wsxctl --help says, for the tests that compare the man page and the
# bash completion with it: source it from the wsxctl/ directory.
#
#   help_commands             the commands that `wsxctl --help` lists
#   help_options CMD          the long options of `wsxctl CMD --help`
#   help_ops                  the ops that `wsxctl run --help` lists
#   missing_from TEXT WORDS   the WORDS not in TEXT (FIXED=x: whole lines)
#   none_missing WHAT WORDS   true when WORDS is empty, else prints them

help_commands() {
	./wsxctl --help | sed -n '/^Commands:/,/^$/s/^  \([a-z0-9]*\) .*/\1/p'
}

help_options() {
	./wsxctl "$1" --help | sed -n '/^Options:/,/^$/p' |
		grep -o -- '--[a-z][a-z-]*' | sort -u
}

help_ops() {
	./wsxctl run --help | sed -n '/^Ops:/,/^$/s/^  \([a-z][a-z0-9]*\) .*/\1/p'
}

missing_from() {
	text=$1
	shift
	for word; do
		printf '%s\n' "$text" | grep -q${FIXED:-} -- "$word" ||
			printf ' %s' "$word"
	done
}

none_missing() {
	[ -z "$2" ] || echo "# $1:$2"
	[ -z "$2" ]
}
