/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx tracepoints (system "wsx"), for trace-cmd, perf, bpftrace and
 * `wsxctl trace`.  Items are identified by their address, which is only
 * meaningful between an item's queue and end events (an item's memory is
 * reused afterwards).  P numbers are wsx's; -1 stands for the global queue.
 *
 *   wsx_item_queue  item queued on P @p (or the global queue, -1)
 *   wsx_item_start  item starts on P @p in M @m; @from is the P it was queued
 *                   on (-1: global), @stolen whether a thief moved it
 *   wsx_item_end    item's function returned; @status is its job's status
 *   wsx_steal       thief P took @count items from victim P, @level away
 *   wsx_spill       P moved @count items from its full runq to the global
 *                   queue
 *   wsx_park        M parks (idle); wsx_unpark: it was woken
 *   wsx_handoff     M @m entering a blocking section (or found running a
 *                   long item) handed P @p to M @to
 *   wsx_wasted      the monitor found P @p idle for @us while an item waited
 *                   as long in @place (runq or inbox of P @where, or global
 *                   queue @where): monitor.c, "Wasted cores"
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wsx

#if !defined(_WSX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WSX_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(wsx_item_queue,
	    TP_PROTO(const void *item, int p),
	    TP_ARGS(item, p),
	    TP_STRUCT__entry(__field(const void *, item)
			     __field(int, p)),
	    TP_fast_assign(__entry->item = item;
			   __entry->p = p;),
	    TP_printk("item=%p p=%d", __entry->item, __entry->p)
);

TRACE_EVENT(wsx_item_start,
	    TP_PROTO(const void *item, int p, int m, int from, bool stolen),
	    TP_ARGS(item, p, m, from, stolen),
	    TP_STRUCT__entry(__field(const void *, item)
			     __field(int, p)
			     __field(int, m)
			     __field(int, from)
			     __field(bool, stolen)),
	    TP_fast_assign(__entry->item = item;
			   __entry->p = p;
			   __entry->m = m;
			   __entry->from = from;
			   __entry->stolen = stolen;),
	    TP_printk("item=%p p=%d m=%d from=%d stolen=%d", __entry->item,
		      __entry->p, __entry->m, __entry->from, __entry->stolen)
);

TRACE_EVENT(wsx_item_end,
	    TP_PROTO(const void *item, int status),
	    TP_ARGS(item, status),
	    TP_STRUCT__entry(__field(const void *, item)
			     __field(int, status)),
	    TP_fast_assign(__entry->item = item;
			   __entry->status = status;),
	    TP_printk("item=%p status=%d", __entry->item, __entry->status)
);

TRACE_EVENT(wsx_item_park,
	    TP_PROTO(const void *item),
	    TP_ARGS(item),
	    TP_STRUCT__entry(__field(const void *, item)),
	    TP_fast_assign(__entry->item = item;),
	    TP_printk("item=%p", __entry->item)
);

TRACE_EVENT(wsx_item_ready,
	    TP_PROTO(const void *item, int cpu),
	    TP_ARGS(item, cpu),
	    TP_STRUCT__entry(__field(const void *, item)
			     __field(int, cpu)),
	    TP_fast_assign(__entry->item = item;
			   __entry->cpu = cpu;),
	    TP_printk("item=%p cpu=%d", __entry->item, __entry->cpu)
);

TRACE_EVENT(wsx_steal,
	    TP_PROTO(int thief, int victim, unsigned int count,
		     unsigned int level),
	    TP_ARGS(thief, victim, count, level),
	    TP_STRUCT__entry(__field(int, thief)
			     __field(int, victim)
			     __field(unsigned int, count)
			     __field(unsigned int, level)),
	    TP_fast_assign(__entry->thief = thief;
			   __entry->victim = victim;
			   __entry->count = count;
			   __entry->level = level;),
	    TP_printk("thief=%d victim=%d count=%u level=%s", __entry->thief,
		      __entry->victim, __entry->count,
		      __print_symbolic(__entry->level, { 0, "smt" },
				       { 1, "cache" }, { 2, "node" },
				       { 3, "remote" }))
);

TRACE_EVENT(wsx_spill,
	    TP_PROTO(int p, unsigned int count),
	    TP_ARGS(p, count),
	    TP_STRUCT__entry(__field(int, p)
			     __field(unsigned int, count)),
	    TP_fast_assign(__entry->p = p;
			   __entry->count = count;),
	    TP_printk("p=%d count=%u", __entry->p, __entry->count)
);

TRACE_EVENT(wsx_wasted,
	    TP_PROTO(int p, int place, int where, u64 us),
	    TP_ARGS(p, place, where, us),
	    TP_STRUCT__entry(__field(int, p)
			     __field(int, place)
			     __field(int, where)
			     __field(u64, us)),
	    TP_fast_assign(__entry->p = p;
			   __entry->place = place;
			   __entry->where = where;
			   __entry->us = us;),
	    TP_printk("p=%d place=%s where=%d us=%llu", __entry->p,
		      __print_symbolic(__entry->place, { 0, "runq" },
				       { 1, "inbox" }, { 2, "global" }),
		      __entry->where, __entry->us)
);

DECLARE_EVENT_CLASS(wsx_m_event,
		    TP_PROTO(int m),
		    TP_ARGS(m),
		    TP_STRUCT__entry(__field(int, m)),
		    TP_fast_assign(__entry->m = m;),
		    TP_printk("m=%d", __entry->m)
);

DEFINE_EVENT(wsx_m_event, wsx_park,
	     TP_PROTO(int m),
	     TP_ARGS(m)
);

DEFINE_EVENT(wsx_m_event, wsx_unpark,
	     TP_PROTO(int m),
	     TP_ARGS(m)
);

TRACE_EVENT(wsx_handoff,
	    TP_PROTO(int m, int p, int to),
	    TP_ARGS(m, p, to),
	    TP_STRUCT__entry(__field(int, m)
			     __field(int, p)
			     __field(int, to)),
	    TP_fast_assign(__entry->m = m;
			   __entry->p = p;
			   __entry->to = to;),
	    TP_printk("m=%d p=%d to=%d", __entry->m, __entry->p, __entry->to)
);

#endif /* _WSX_TRACE_H */

/* This part must be outside protection */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wsx_trace
#include <trace/define_trace.h>
