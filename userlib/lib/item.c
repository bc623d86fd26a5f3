/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libwsx: helpers that fill struct wsx_req.
 */
#include <string.h>

#include <wsx/libwsx.h>

static void item_init(struct wsx_req *item, enum wsx_op op, __u64 user_data)
{
	memset(item, 0, sizeof(*item));
	item->op = op;
	item->user_data = user_data;
}

void wsx_item_nop(struct wsx_req *item, __u64 user_data)
{
	item_init(item, WSX_OP_NOP, user_data);
}

void wsx_item_spin(struct wsx_req *item, __u64 ns, __u64 user_data)
{
	item_init(item, WSX_OP_SPIN, user_data);
	item->args[0] = ns;
}

void wsx_item_sleep(struct wsx_req *item, __u64 us, __u64 user_data)
{
	item_init(item, WSX_OP_SLEEP, user_data);
	item->args[0] = us;
}

void wsx_item_spawn(struct wsx_req *item, unsigned int fanout,
		    unsigned int depth, __u64 leaf_ns, __u64 user_data)
{
	item_init(item, WSX_OP_SPAWN, user_data);
	item->args[0] = fanout;
	item->args[1] = depth;
	item->args[2] = leaf_ns;
}

void wsx_item_fib(struct wsx_req *item, unsigned int n, __u64 user_data)
{
	item_init(item, WSX_OP_FIB, user_data);
	item->args[0] = n;
}

void wsx_item_crc32c(struct wsx_req *item, const void *buf, size_t len,
		     size_t chunk, __u64 user_data)
{
	item_init(item, WSX_OP_CRC32C, user_data);
	item->args[0] = (__u64)(uintptr_t)buf;
	item->args[1] = len;
	item->args[2] = chunk;
}

void wsx_item_send(struct wsx_req *item, unsigned int chan, __u64 first,
		   __u64 count, __u64 user_data)
{
	item_init(item, WSX_OP_SEND, user_data);
	item->args[0] = chan;
	item->args[1] = first;
	item->args[2] = count;
}

void wsx_item_recv(struct wsx_req *item, unsigned int chan, __u64 count,
		   unsigned int forward, __u64 ns, __u64 user_data)
{
	item_init(item, WSX_OP_RECV, user_data);
	item->args[0] = chan;
	item->args[1] = count;
	item->args[2] = forward;
	item->args[3] = ns;
}

void wsx_item_poll(struct wsx_req *item, int fd, unsigned int events,
		   __u64 timeout_ns, __u64 user_data)
{
	item_init(item, WSX_OP_POLL, user_data);
	item->args[0] = fd;
	item->args[1] = events;
	item->args[2] = timeout_ns;
}

void wsx_item_pingpong(struct wsx_req *item, __u64 rounds, __u64 user_data)
{
	item_init(item, WSX_OP_PINGPONG, user_data);
	item->args[0] = rounds;
}

void wsx_item_pipeline(struct wsx_req *item, unsigned int stages,
		       __u64 values, __u64 user_data)
{
	item_init(item, WSX_OP_PIPELINE, user_data);
	item->args[0] = stages;
	item->args[1] = values;
}

void wsx_item_place(struct wsx_req *item, enum wsx_place place,
		    unsigned int target)
{
	item->place = place;
	item->target = place == WSX_PLACE_P ? target : 0;
}

void wsx_item_delay(struct wsx_req *item, __u64 ns)
{
	item->delay_ns = ns;
}
