/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The item helpers zero the whole item, then set exactly their fields.
 */
#include <string.h>

#include <wsx/libwsx.h>
#include "ktap.h"

/* Every byte of @item equals the same byte of @want. */
static bool item_is(const struct wsx_req *item, const struct wsx_req *want)
{
	return !memcmp(item, want, sizeof(*item));
}

/* An item full of garbage, as a reused array would be. */
static void dirty(struct wsx_req *item)
{
	memset(item, 0xa5, sizeof(*item));
}

static void check_fill(void)
{
	static const char buf[16];
	struct wsx_req item, want;

	dirty(&item);
	wsx_item_nop(&item, 42);
	want = (struct wsx_req){ .user_data = 42, .op = WSX_OP_NOP };
	ktap_check(item_is(&item, &want), "nop");

	dirty(&item);
	wsx_item_spin(&item, 1000, 1);
	want = (struct wsx_req){ .user_data = 1, .op = WSX_OP_SPIN,
				  .args = { 1000 } };
	ktap_check(item_is(&item, &want), "spin");

	dirty(&item);
	wsx_item_sleep(&item, 500, 2);
	want = (struct wsx_req){ .user_data = 2, .op = WSX_OP_SLEEP,
				  .args = { 500 } };
	ktap_check(item_is(&item, &want), "sleep");

	dirty(&item);
	wsx_item_spawn(&item, 4, 3, 100, 3);
	want = (struct wsx_req){ .user_data = 3, .op = WSX_OP_SPAWN,
				  .args = { 4, 3, 100 } };
	ktap_check(item_is(&item, &want), "spawn");

	dirty(&item);
	wsx_item_fib(&item, 20, UINT64_MAX);
	want = (struct wsx_req){ .user_data = UINT64_MAX, .op = WSX_OP_FIB,
				  .args = { 20 } };
	ktap_check(item_is(&item, &want), "fib, user_data u64 max");

	dirty(&item);
	wsx_item_crc32c(&item, buf, sizeof(buf), 4096, 5);
	want = (struct wsx_req){ .user_data = 5, .op = WSX_OP_CRC32C,
				  .args = { (uintptr_t)buf, sizeof(buf),
					    4096 } };
	ktap_check(item_is(&item, &want), "crc32c");

	dirty(&item);
	wsx_item_send(&item, 3, UINT64_MAX - 1, 0xffffffffULL, 6);
	want = (struct wsx_req){ .user_data = 6, .op = WSX_OP_SEND,
				  .args = { 3, UINT64_MAX - 1, 0xffffffffULL } };
	ktap_check(item_is(&item, &want), "send: channel, first, count");

	dirty(&item);
	wsx_item_recv(&item, 4, 1000, 0, 0, 7);
	want = (struct wsx_req){ .user_data = 7, .op = WSX_OP_RECV,
				  .args = { 4, 1000 } };
	ktap_check(item_is(&item, &want), "recv: channel, count");

	dirty(&item);
	wsx_item_recv(&item, 0xffffffffU, 5, 9, 20000, 8);
	want = (struct wsx_req){ .user_data = 8, .op = WSX_OP_RECV,
				  .args = { 0xffffffffULL, 5, 9, 20000 } };
	ktap_check(item_is(&item, &want), "recv: forward channel and ns");

	dirty(&item);
	wsx_item_poll(&item, 5, 0x2001, WSX_DELAY_MAX_NS, 9);
	want = (struct wsx_req){ .user_data = 9, .op = WSX_OP_POLL,
				  .args = { 5, 0x2001, WSX_DELAY_MAX_NS } };
	ktap_check(item_is(&item, &want), "poll: fd, events, timeout");

	dirty(&item);
	wsx_item_poll(&item, -1, 4, 0, 10);
	want = (struct wsx_req){ .user_data = 10, .op = WSX_OP_POLL,
				  .args = { UINT64_MAX, 4 } };
	ktap_check(item_is(&item, &want),
		   "poll: a negative fd over INT_MAX, for -EBADF");

	dirty(&item);
	wsx_item_pingpong(&item, WSX_CHAN_COUNT_MAX, 11);
	want = (struct wsx_req){ .user_data = 11, .op = WSX_OP_PINGPONG,
				  .args = { WSX_CHAN_COUNT_MAX } };
	ktap_check(item_is(&item, &want), "pingpong: rounds");

	dirty(&item);
	wsx_item_pingpong(&item, WSX_CHAN_COUNT_MAX + 1, 12);
	want = (struct wsx_req){ .user_data = 12, .op = WSX_OP_PINGPONG,
				  .args = { WSX_CHAN_COUNT_MAX + 1 } };
	ktap_check(item_is(&item, &want),
		   "pingpong: rounds over the limit kept, for -E2BIG");

	dirty(&item);
	wsx_item_pipeline(&item, WSX_PIPELINE_MAX_STAGES, 100000, 13);
	want = (struct wsx_req){ .user_data = 13, .op = WSX_OP_PIPELINE,
				  .args = { WSX_PIPELINE_MAX_STAGES, 100000 } };
	ktap_check(item_is(&item, &want), "pipeline: stages, values");

	dirty(&item);
	wsx_item_pipeline(&item, UINT32_MAX, UINT64_MAX, 14);
	want = (struct wsx_req){ .user_data = 14, .op = WSX_OP_PIPELINE,
				  .args = { UINT32_MAX, UINT64_MAX } };
	ktap_check(item_is(&item, &want),
		   "pipeline: stages and values over the limits kept, for -E2BIG");
}

static void check_place(void)
{
	struct wsx_req item, want;

	dirty(&item);
	wsx_item_fib(&item, 10, 7);
	want = item;
	wsx_item_place(&item, WSX_PLACE_P, 3);
	want.place = WSX_PLACE_P;
	want.target = 3;
	ktap_check(item_is(&item, &want), "place on P 3 sets place, target");

	wsx_item_place(&item, WSX_PLACE_GLOBAL, 3);
	want.place = WSX_PLACE_GLOBAL;
	want.target = 0;
	ktap_check(item_is(&item, &want), "place global zeroes target");

	wsx_item_delay(&item, 123456789);
	want.delay_ns = 123456789;
	ktap_check(item_is(&item, &want), "delay sets delay_ns only");
}

int main(void)
{
	check_fill();
	check_place();
	return ktap_done();
}
