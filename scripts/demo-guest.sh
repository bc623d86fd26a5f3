#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make demo`.
set -e
echo "== wsx is loaded"
grep '^wsx ' /proc/modules
ls -l /dev/wsx
echo "== wsxctl version"
wsxctl version
echo "== /sys/kernel/debug/wsx/"
ls /sys/kernel/debug/wsx/
