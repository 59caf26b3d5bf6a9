// go_chain: four goroutines each spin work -> leaf for the seconds given,
// the runtime calling into and out of them (timers, GC of nothing).
// Usage: go_chain [seconds]
package main

import (
	"os"
	"strconv"
	"sync"
	"time"
)

//go:noinline
func leaf(n uint64) uint64 {
	x := n
	for i := uint64(0); i < 2000; i++ {
		x = x*6364136223846793005 + i
	}
	return x
}

//go:noinline
func work(id int, until time.Time) uint64 {
	var s uint64
	for time.Now().Before(until) {
		for i := 0; i < 50; i++ {
			s ^= leaf(s + uint64(i+id))
		}
	}
	return s
}

func main() {
	secs, _ := strconv.ParseFloat(os.Args[1], 64)
	until := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(id int) { defer wg.Done(); work(id, until) }(g)
	}
	wg.Wait()
}
