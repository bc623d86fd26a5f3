#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of check-deb's group test, run through scripts/vm-run
# --installed --load before the kselftests.  The guest has no udev and no
# users of its own: check-deb adds the host's udevadm (/extra/udevadm,
# which is systemd-udevd when called so) and /extra/group with the rule
# file wsx-dkms installed (60-wsx.rules), and passwd and group files that
# hold the package's group wsx with the gid it has on the host, wsxmember
# in it (as `adduser wsxmember wsx` leaves it) and wsxother outside it.
#
# It starts udevd with only that rule, unloads wsx.ko and loads it again
# (udevd then handles the misc device's add uevent, as on a system where
# modprobe loads wsx), stops udevd, and prints a KTAP line for each of:
#   - /dev/wsx is root:wsx, mode 0660;
#   - wsxmember runs `wsxctl run fib 20` (exit 0);
#   - wsxother gets EACCES from the same command (exit 1, "Permission
#     denied (EACCES)" on stderr).
# Exits 1 when one of them failed.  Last it loads wsx.ko once more, with
# no udevd, for the kselftests: they check the node the module makes.
G=/extra/group
n=0 rc=0

result() { # result OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n deb: $2"
	else
		echo "not ok $n deb: $2"
		rc=1
	fi
}

mkdir -p /etc /usr/lib/udev/rules.d
cp "$G/passwd" "$G/group" /etc/
cp "$G/60-wsx.rules" /usr/lib/udev/rules.d/
ln -s /extra/udevadm /bin/udevadm
ln -s /extra/udevadm /bin/systemd-udevd
SYSTEMD_LOG_TARGET=console systemd-udevd --daemon >/tmp/udevd.log 2>&1 ||
	echo "# systemd-udevd did not start"
rmmod wsx && insmod /wsx/kmod/wsx.ko || echo "# reloading wsx.ko failed"
udevadm settle --timeout=60 || echo "# udevadm settle timed out"
udevadm control --exit || echo "# udevd did not exit"
sed 's/^/# udevd: /' /tmp/udevd.log

node=$(stat -c '%U:%G %a' /dev/wsx 2>&1)
echo "# /dev/wsx: $node"
[ "$node" = "root:wsx 660" ]
result $? "udev's 60-wsx.rules gives /dev/wsx to root:wsx, mode 0660"

as() { # as USER: run `wsxctl run fib 20` as USER, output as diagnostics
	echo "# $1: $(su -s /bin/sh "$1" -c id)"
	su -s /bin/sh "$1" -c 'wsxctl run fib 20' >/tmp/as.out 2>&1
	s=$?
	sed "s/^/# $1: /" /tmp/as.out
	echo "# $1: exit $s"
	return $s
}

as wsxmember
result $? "wsxmember (in group wsx) runs wsxctl run fib 20"

as wsxother
s=$?
[ $s = 1 ] && grep -q 'open device: Permission denied (EACCES)' /tmp/as.out
result $? "wsxother (not in group wsx) gets EACCES from wsxctl run fib 20"
rmmod wsx && insmod /wsx/kmod/wsx.ko || echo "# reloading wsx.ko failed"
echo "# /dev/wsx for the kselftests: $(stat -c '%U:%G %a' /dev/wsx 2>&1)"
exit $rc
