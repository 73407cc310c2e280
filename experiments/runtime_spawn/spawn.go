// spawn.go: Go's os/exec timed from inside Go, for the runtime_spawn bench.
//
//	spawn_go MODE N PATH
//
// MODE command: exec.Command(PATH).Run(), the os/exec API;
// MODE startprocess: os.StartProcess(PATH, ...) and Process.Wait(), the raw
// call underneath it, doing the same work.
// One spawn to warm up, then N; prints the mean nanoseconds per spawn (spawn,
// exec, wait) on stdout.
//
//	spawn_go alternate N PATH
//
// both, alternating: one warm-up of each, then N cycles that run each once,
// in an order shuffled every cycle (the same order on every run), each spawn
// timed on its own; prints the mean nanoseconds of command, then of
// startprocess. The two see the same bursts of a shared machine, so their
// ratio is paired spawn by spawn.
//
//	spawn_go version
//
// prints the Go release it was built with.
package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"
)

// fail reports a spawn's error and exits.
func fail(path string, err error) {
	fmt.Fprintf(os.Stderr, "spawn_go: %s: %v\n", path, err)
	os.Exit(1)
}

// alternate runs both spawns n times each after a warm-up of each, in an order
// shuffled every cycle, and prints the mean nanoseconds of each.
func alternate(n int, path string, spawns [2]func() error) {
	for _, spawn := range spawns {
		if err := spawn(); err != nil {
			fail(path, err)
		}
	}
	order := rand.New(rand.NewSource(1))
	var total [2]time.Duration
	for i := 0; i < n; i++ {
		first := order.Intn(2)
		for _, k := range [2]int{first, 1 - first} {
			start := time.Now()
			if err := spawns[k](); err != nil {
				fail(path, err)
			}
			total[k] += time.Since(start)
		}
	}
	fmt.Println(total[0].Nanoseconds()/int64(n), total[1].Nanoseconds()/int64(n))
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "version" {
		fmt.Println(runtime.Version())
		return
	}
	mode := ""
	if len(os.Args) == 4 {
		mode = os.Args[1]
	}
	if mode != "command" && mode != "startprocess" && mode != "alternate" {
		fmt.Fprintln(os.Stderr, "usage: spawn_go command|startprocess|alternate N PATH")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "spawn_go: N must be a positive integer, not %q\n", os.Args[2])
		os.Exit(2)
	}
	path := os.Args[3]
	command := func() error { return exec.Command(path).Run() }
	attr := &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}}
	startprocess := func() error {
		p, err := os.StartProcess(path, []string{path}, attr)
		if err != nil {
			return err
		}
		s, err := p.Wait()
		if err == nil && !s.Success() {
			err = fmt.Errorf("%v", s)
		}
		return err
	}
	if mode == "alternate" {
		alternate(n, path, [2]func() error{command, startprocess})
		return
	}
	spawn := command
	if mode == "startprocess" {
		spawn = startprocess
	}
	if err := spawn(); err != nil {
		fail(path, err)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := spawn(); err != nil {
			fail(path, err)
		}
	}
	fmt.Println(time.Since(start).Nanoseconds() / int64(n))
}
