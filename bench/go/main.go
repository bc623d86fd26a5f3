// SPDX-License-Identifier: GPL-2.0

// wsx_go: the Go runtime as a contender of `make bench`.  wsx models its
// scheduler on Go's (runtime/proc.go), so the same shapes as
// bench/wsx_bench.c run here on goroutines, with GOMAXPROCS = the CPUs:
//
//	wsx_go spawn ITEMS FANOUT RUNS
//		a tree of ITEMS goroutines: one that stands for n items starts
//		FANOUT standing for the n - 1 others, split evenly, and does
//		nothing else; the last one to finish ends the run
//	wsx_go fib N RUNS
//		fork-join Fibonacci by continuations: a node starts goroutines
//		for n-1 and n-2 and returns; the last child to finish combines
//		both results and completes its parent, so nothing ever waits
//	wsx_go imbalance ITEMS SPIN_ITERS RUNS
//		ITEMS goroutines started at once from one goroutine, each
//		running SPIN_ITERS rounds of the multiply-add of wsx_bench.c
//
// and the shapes of bench/wsx_chanbench.c, on unbuffered channels:
//
//	wsx_go pingpong N RUNS
//		one value handed back and forth between two goroutines over
//		c1 and c2: B receives N on c1 and sends each on c2, A receives
//		N - 1 on c2 and sends each on c1, a third goroutine sends the
//		first; timed to A's end, 2N - 1 handoffs (items); B's last
//		value is then taken by the main goroutine
//	wsx_go pipeline STAGES VALUES RUNS
//		a sender of 1 .. VALUES, STAGES goroutines each receiving on
//		its channel and sending on the next, a sink summing the last
//		channel; timed to the sink's end, VALUES items
//	wsx_go wakestorm ITEMS RUNS
//		ITEMS goroutines blocked receiving on one channel (each counts
//		itself just before its receive; the main goroutine then sleeps
//		50 ms so that all have parked), released by one goroutine
//		sending 1 .. ITEMS; timed from the sender's start to the last
//		receiver's end, ITEMS items
//
// Every node is a goroutine and fib's join state is allocated per node, as
// the bench module allocates its items.  One untimed run warms the heap and
// the runtime's free goroutines first; then each run prints the bench
// module's result line:
//
//	bench workload=W contender=go run=I cpus=N items=N ns=N result=N ok=0|1 spin_iters=N
//
// ns is the wall time from before the first goroutine starts to after the
// last one finished (for the channel shapes, as said above).  Build: CGO_ENABLED=0 go build (a static binary).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// run is one run of one workload.
type run struct {
	pending int64 // spawn, imbalance: items not yet finished
	done    chan struct{}
	result  uint64
	iters   uint64
	fanout  uint64
}

func (r *run) finish() {
	if atomic.AddInt64(&r.pending, -1) == 0 {
		close(r.done)
	}
}

// spawnItem splits as wsx_bench.c's wb_spawn_fn does.
func spawnItem(r *run, n uint64) {
	rest := n - 1
	for i := uint64(0); i < r.fanout; i++ {
		k := (rest + r.fanout - 1 - i) / r.fanout
		if k == 0 {
			break
		}
		go spawnItem(r, k)
	}
	r.finish()
}

// fibNode is the continuation state of one fib node.
type fibNode struct {
	r       *run
	parent  *fibNode
	side    int
	n       uint64
	pending int32
	part    [2]uint64
}

// fibJoin: @node finished with @value; complete parents up to the root.
func fibJoin(node *fibNode, value uint64) {
	for {
		parent := node.parent
		if parent == nil {
			node.r.result = value
			close(node.r.done)
			return
		}
		parent.part[node.side] = value
		// sequentially consistent: the last child sees both parts
		if atomic.AddInt32(&parent.pending, -1) != 0 {
			return
		}
		node = parent
		value = node.part[0] + node.part[1]
	}
}

func fibItem(node *fibNode) {
	if node.n < 2 {
		fibJoin(node, node.n)
		return
	}
	node.pending = 2
	var child [2]*fibNode
	for side := range child {
		child[side] = &fibNode{r: node.r, parent: node, side: side,
			n: node.n - 1 - uint64(side)}
	}
	// side 1 first, as the bench module and wsx's FIB op do
	go fibItem(child[1])
	go fibItem(child[0])
}

var sink uint64

func burn(iters uint64) {
	x := uint64(1)
	for ; iters > 0; iters-- {
		x = x*6364136223846793005 + 1442695040888963407
	}
	atomic.AddUint64(&sink, x)
}

func spinItem(r *run) {
	burn(r.iters)
	r.finish()
}

func fib(n uint64) uint64 {
	a, b := uint64(0), uint64(1)
	for ; n > 0; n-- {
		a, b = b, a+b
	}
	return a
}

// once runs @what once with @arg (items, or fib's n) and the iters and
// fanout of @cfg; returns the items that ran, the wall time in ns, the
// result and whether it is right.
func once(what string, arg uint64, cfg run) (uint64, int64, uint64, bool) {
	r := &run{done: make(chan struct{}), iters: cfg.iters, fanout: cfg.fanout}
	var items uint64
	start := time.Now()
	switch what {
	case "pingpong":
		return pingpong(arg)
	case "pipeline":
		return pipeline(cfg.fanout, arg)
	case "wakestorm":
		return wakestorm(arg)
	case "spawn":
		items = arg
		r.pending = int64(arg)
		go spawnItem(r, arg)
	case "fib":
		items = 2*fib(arg+1) - 1
		go fibItem(&fibNode{r: r, n: arg})
	case "imbalance":
		items = arg
		r.pending = int64(arg)
		for i := uint64(0); i < arg; i++ {
			go spinItem(r)
		}
	}
	<-r.done
	ns := time.Since(start).Nanoseconds()
	ok := what != "fib" || r.result == fib(arg)
	return items, ns, r.result, ok
}

// pingpong: 2n - 1 handoffs between A and B; returns them, the time to
// A's end, B's sum and whether every sum is right.
func pingpong(n uint64) (uint64, int64, uint64, bool) {
	c1, c2 := make(chan uint64), make(chan uint64)
	done := make(chan struct{})
	var sumA, sumB uint64
	var end time.Time
	start := time.Now()
	go func() { c1 <- 1 }()
	go func() {
		for i := uint64(0); i < n; i++ {
			v := <-c1
			sumB += v
			c2 <- v
		}
	}()
	go func() {
		for i := uint64(0); i < n-1; i++ {
			v := <-c2
			sumA += v
			c1 <- v
		}
		end = time.Now()
		close(done)
	}()
	<-done
	last := <-c2
	ns := end.Sub(start).Nanoseconds()
	// B's sum: its last send was taken above, so it wrote sumB before
	return 2*n - 1, ns, sumB, sumA == n-1 && sumB == n && last == 1
}

// pipeline: values 1 .. values through stages goroutines.
func pipeline(stages, values uint64) (uint64, int64, uint64, bool) {
	ch := make([]chan uint64, stages+1)
	for i := range ch {
		ch[i] = make(chan uint64)
	}
	sums := make([]uint64, stages)
	var stagesDone sync.WaitGroup
	stagesDone.Add(int(stages))
	done := make(chan struct{})
	var sink uint64
	start := time.Now()
	go func() {
		for v := uint64(1); v <= values; v++ {
			ch[0] <- v
		}
	}()
	for i := uint64(0); i < stages; i++ {
		go func(i uint64) {
			in, out := ch[i], ch[i+1]
			var s uint64
			for k := uint64(0); k < values; k++ {
				v := <-in
				s += v
				out <- v
			}
			sums[i] = s
			stagesDone.Done()
		}(i)
	}
	go func() {
		for k := uint64(0); k < values; k++ {
			sink += <-ch[stages]
		}
		close(done)
	}()
	<-done
	ns := time.Since(start).Nanoseconds()
	want := values * (values + 1) / 2
	stagesDone.Wait()
	ok := sink == want
	for _, s := range sums {
		ok = ok && s == want
	}
	return values, ns, sink, ok
}

// wakestorm: items goroutines parked on one channel, one sender.
func wakestorm(items uint64) (uint64, int64, uint64, bool) {
	c := make(chan uint64)
	done := make(chan struct{})
	var waiting, sum uint64
	left := int64(items)
	var end time.Time
	for i := uint64(0); i < items; i++ {
		go func() {
			atomic.AddUint64(&waiting, 1)
			v := <-c
			atomic.AddUint64(&sum, v)
			if atomic.AddInt64(&left, -1) == 0 {
				end = time.Now()
				close(done)
			}
		}()
	}
	for atomic.LoadUint64(&waiting) < items {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	go func() {
		for v := uint64(1); v <= items; v++ {
			c <- v
		}
	}()
	<-done
	ns := end.Sub(start).Nanoseconds()
	s := atomic.LoadUint64(&sum)
	return items, ns, s, s == items*(items+1)/2
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: wsx_go spawn ITEMS FANOUT RUNS | fib N RUNS | imbalance ITEMS SPIN_ITERS RUNS")
	fmt.Fprintln(os.Stderr, "       wsx_go pingpong N RUNS | pipeline STAGES VALUES RUNS | wakestorm ITEMS RUNS")
	os.Exit(2)
}

func number(s string, lo, hi uint64) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v < lo || v > hi {
		usage()
	}
	return v
}

func main() {
	args := os.Args[1:]
	if len(args) < 3 {
		usage()
	}
	what := args[0]
	var arg uint64
	var cfg run
	switch {
	case what == "spawn" && len(args) == 4:
		arg = number(args[1], 1, 1<<24)
		cfg.fanout = number(args[2], 2, 16)
	case what == "fib" && len(args) == 3:
		arg = number(args[1], 1, 32)
	case what == "imbalance" && len(args) == 4:
		arg = number(args[1], 1, 1000000)
		cfg.iters = number(args[2], 0, 1000000000)
	case what == "pingpong" && len(args) == 3:
		arg = number(args[1], 2, 1<<32)
	case what == "pipeline" && len(args) == 4:
		cfg.fanout = number(args[1], 1, 1000) // the stages
		arg = number(args[2], 1, 1<<32)
	case what == "wakestorm" && len(args) == 3:
		arg = number(args[1], 1, 1000000)
	default:
		usage()
	}
	runs := number(args[len(args)-1], 1, 100)
	cpus := runtime.NumCPU()
	runtime.GOMAXPROCS(cpus)
	once(what, arg, cfg)
	failed := false
	for i := uint64(0); i < runs; i++ {
		items, ns, result, ok := once(what, arg, cfg)
		okv := 0
		if ok {
			okv = 1
		} else {
			failed = true
		}
		fmt.Printf("bench workload=%s contender=go run=%d cpus=%d items=%d ns=%d result=%d ok=%d spin_iters=%d\n",
			what, i, cpus, items, ns, result, okv, cfg.iters)
	}
	if failed {
		os.Exit(1)
	}
}
